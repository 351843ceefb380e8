"""One Korean voice across the series (issue #25): every glossary takes its Korean terms from
notebooks/korean_terms.toml, one term per concept, and every 핵심 요약 is written in 해라체."""
import re
from pathlib import Path
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomllib is 3.11's; tomli is the same parser (requirements.txt installs it there)
    import tomli as tomllib

import pytest
from test_notebooks import markdown_of as markdown
from test_notebooks import section as notebook_section

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted(ROOT.joinpath("notebooks").glob("[0-9][0-9]_*.ipynb"))
MASTERS = sorted(ROOT.joinpath("instructor").glob("[0-9][0-9]_*.ipynb"))
TERMS = tomllib.loads(ROOT.joinpath("notebooks", "korean_terms.toml").read_text(encoding="utf-8"))
HANGUL = re.compile(r"[\uac00-\ud7a3]")
# What may close a sentence after its verb: a parenthesised aside, quotes, code, punctuation.
TRAILER = re.compile(r"(\s*\([^()]*\)|[\s.!?\"'`*)\]:;,])+$")


def section(text: str, heading: str) -> str:
    found = notebook_section(text, heading)
    assert found is not None, f"no '{heading}' section"
    return found


def glossary_rows(text: str) -> list[tuple[str, str]]:
    rows = []
    for line in section(text, "Glossary").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] != "English" and not set(cells[0]) <= set("-: "):
            rows.append((cells[0], cells[1]))
    return rows


def sentences(text: str) -> list[str]:
    """The Korean sentences of a summary: bullets split at a full stop followed by a space."""
    pieces = [piece for line in text.splitlines() for piece in re.split(r"(?<=[.!?])\s+", line.lstrip("-* "))]
    return [piece for piece in pieces if HANGUL.search(piece)]


def has_final_bieup(syllable: str) -> bool:
    """True for a syllable closed by ㅂ (습, 합, 입, 됩): the -ㅂ니다 of 합쇼체."""
    return "\uac00" <= syllable <= "\ud7a3" and (ord(syllable) - 0xAC00) % 28 == 17


def is_haerache(sentence: str) -> bool:
    """해라체 ends a sentence in -다 (한다, 이다, 했다, 아니다); 합쇼체's -ㅂ니다 and 해요체's -요 do not."""
    core = TRAILER.sub("", sentence)
    return core.endswith("다") and not (core.endswith("니다") and len(core) > 2 and has_final_bieup(core[-3]))


ENTRY_OF = {english: entry for entry in TERMS["term"] for english in entry["en"]}


def test_the_term_list_gives_one_korean_term_per_concept():
    seen: dict[str, list[str]] = {}
    for entry in TERMS["term"]:
        assert entry["en"] and entry["ko"], f"an entry needs en and ko: {entry}"
        seen.setdefault(entry["ko"], []).append(entry["en"][0])
    shared = {korean: english for korean, english in seen.items() if len(english) > 1}
    assert not shared, f"one Korean term stands for several concepts: {shared}"
    spellings = [english for entry in TERMS["term"] for english in entry["en"]]
    assert len(spellings) == len(set(spellings)), "an English spelling belongs to two entries"


@pytest.mark.parametrize("path", NOTEBOOKS + MASTERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_glossary_uses_the_term_list(path):
    wrong = []
    for english, korean in glossary_rows(markdown(path)):
        entry = ENTRY_OF.get(english)
        if entry is None:
            wrong.append(f"'{english}' is not in notebooks/korean_terms.toml: add its entry there first")
        elif not re.fullmatch(rf"{re.escape(entry['ko'])}( \([^()]+\))?", korean):
            wrong.append(f"'{english}': expected '{entry['ko']}' (a ' (gloss)' may follow), got '{korean}'")
    assert not wrong, f"{path.name}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path", NOTEBOOKS + MASTERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_korean_summary_is_written_in_haerache(path):
    summary = sentences(section(markdown(path), "핵심 요약"))
    assert summary, f"{path.name}: the 핵심 요약 has no Korean sentence"
    other = [sentence for sentence in summary if not is_haerache(sentence)]
    assert not other, f"{path.name}: write these in 해라체 (end in -다, not -니다 or -요): {other}"


@pytest.mark.parametrize("path", NOTEBOOKS + MASTERS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_korean_text_avoids_the_phrases_the_term_list_rules_out(path):
    text = markdown(path)
    found = {phrase: why for phrase, why in TERMS["avoid"].items() if phrase in text}
    assert not found, f"{path.name}: {found}"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [("위치 임베딩이 어순의 유일한 출처다.", True), ("정확도가 천천히 떨어집니다.", False),
     ("정확도가 떨어져요.", False), ("맞히지 못했다 (20글자에서 15%).", True), ("`make bench`로 잰다", True),
     ("KV 캐시를 줄입니다 (H / Hkv).", False), ("정확한 어텐션은 아니다.", True), ("같습니다.", False),
     ("학습됩니다.", False)],
)
def test_the_register_rule_tells_the_registers_apart(sentence, expected):
    assert is_haerache(sentence) is expected
