# Purpose: string helpers for the greeting.
# Depends on: []

def shout(s):
    return s.upper()
