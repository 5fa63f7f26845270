"""lint/rules"""
