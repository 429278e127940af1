"""The tables the search tests play (tests/agents/test_search.py and test_native_search.py): every variant, with the
rule options that open the rarer decisions (stacking, jump-ins, multi-plays, explicit and decided UNO calls)."""

TABLES = [
    ("classic", 2, {}),
    ("classic", 4, {"stacking": "any", "jump_in": "on", "multi_play": "on", "uno_call": "explicit", "madness": "on"}),
    ("alphabet", 3, {"uno_call": "decide"}),
    ("xiangqi", 2, {}),
    ("flex", 4, {}),
    ("flip", 3, {}),
    ("flip", 2, {"uno_call": "explicit"}),
    ("attack", 4, {"uno_call": "explicit"}),
    ("attack", 2, {}),
]
