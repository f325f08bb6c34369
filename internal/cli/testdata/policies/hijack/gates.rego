package h3a.rules.gates

# A user module in a shipped package could switch a shipped rule off or
# add to it; it is refused.
order_violations := set()
