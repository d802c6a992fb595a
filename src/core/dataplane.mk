# (files of this area are listed here)
