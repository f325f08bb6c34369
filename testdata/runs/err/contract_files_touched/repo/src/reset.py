def reset(token):
    return token
