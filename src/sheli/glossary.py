"""Glossary: the text's terms and the English names used for them in Python code.

Data files and the event log use the text's own terms; Python identifiers may use the English.
Keep this table in step with docs/architecture.md ("Names").

>>> GLOSSARY["司射"]
'director of archery'
"""

GLOSSARY: dict[str, str] = {
    "司射": "director of archery",
    "司馬": "marshal (= 司正)",
    "獲者": "target attendant (flag)",
    "釋獲者": "scorer (tallies)",
    "侯": "target",
    "乏": "blind",
    "物": "shooting mark",
    "楅": "arrow rest",
    "豐": "cup stand",
    "觶": "cup",
    "堂": "hall",
    "庭": "courtyard",
    "序": "wall",
    "楹": "pillar",
    "階": "steps",
    "耦": "pair",
    "上射": "upper archer",
    "下射": "lower archer",
    "三耦": "the three pairs",
    "衆耦": "the other pairs",
    "乘矢": "a set of four arrows",
    "搢三挾一个": "three in the belt, one between fingers",
    "袒": "bare the arm",
    "襲": "cover the arm",
    "決": "thumb ring",
    "遂": "arm guard (拾)",
    "筭": "tally rod",
    "純": "two rods",
    "奇": "one rod",
    "中": "tally vessel",
    "扑": "rod of discipline",
    "旌": "flag",
}
