# coding: cp1252
s = '€ é Ÿ'  # “quoted”
