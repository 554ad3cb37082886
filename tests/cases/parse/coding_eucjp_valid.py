# coding: euc-jp
s = 'あい'  # 漢字
