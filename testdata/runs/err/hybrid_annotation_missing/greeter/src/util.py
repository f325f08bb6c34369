# Depends on: []

def shout(s):
    return s.upper()
