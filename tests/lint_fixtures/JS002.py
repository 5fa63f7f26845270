# -*- coding: utf-8 -*-
# undecodable bytes follow: ÿþú  # JS002
x = 1
