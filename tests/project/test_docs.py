"""The project documents itself: every rule reference in the code resolves inside the repository."""
from __future__ import annotations

import pathlib
import re
import subprocess
from paths import ROOT  # tests/paths.py

RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def _tracked_text_files() -> list[pathlib.Path]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / f for f in out.split() if f.endswith((".py", ".md", ".yaml", ".toml", ".in", ".txt"))
            or f == "Makefile"]


def test_nothing_points_outside_the_repository():
    outside = re.compile(r"(?<![\w/])(RULES\.md|DESIGN\.md)|\.\./shared|shared beside")
    offenders = [f"{p.relative_to(ROOT)}:{i}" for p in _tracked_text_files() if p.name != "test_docs.py"
                 for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if outside.search(line)]
    assert not offenders, offenders


def test_every_section_reference_names_a_heading_of_the_rules_document():
    headings = set(re.findall(r"^#{2,3} (?:HR-\d|(\d+(?:\.\d+)?)\.? )", RULES, flags=re.M))
    cited = {}
    for p in _tracked_text_files():
        for m in re.finditer(r"docs/rules\.md §(\d+(?:\.\d+)?)", p.read_text(encoding="utf-8")):
            cited.setdefault(m.group(1), str(p.relative_to(ROOT)))
    missing = {sec: where for sec, where in cited.items() if sec not in headings}
    assert cited and not missing, missing


def test_every_rule_identifier_cited_in_code_is_defined_in_the_rules_document():
    ident = re.compile(r"\b(CORE-\d+|AMB-[A-G]\d+|HR-\d)\b")
    defined = set(re.findall(r"\*\*(CORE-\d+|AMB-[A-G]\d+)\b", RULES)) | set(re.findall(r"^### (HR-\d)", RULES, re.M))
    cited = {}
    for p in _tracked_text_files():
        if p.name == "rules.md":
            continue
        for m in ident.finditer(p.read_text(encoding="utf-8")):
            cited.setdefault(m.group(1), str(p.relative_to(ROOT)))
    missing = {i: where for i, where in cited.items() if i not in defined}
    assert len(cited) > 20 and not missing, missing


def test_readme_links_to_the_rules_document():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/rules.md)" in readme
