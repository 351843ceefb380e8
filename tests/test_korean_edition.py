"""The Korean edition (issue #28): every notebook of the series has a Korean twin in notebooks/ko/, built by
`make korean` (tools/korean_build.py) from the English .ipynb and notebooks/NN_topic.ko.md, and it cannot
go stale unnoticed: every markdown cell has an entry that translates its current English text (hash),
the code cells and outputs are the English ones, the committed build is current, no English paragraph is
left, the Korean is 해라체 and uses the series' terms."""
import functools
import json
import re
import shutil
import subprocess
import sys

import pytest
from test_korean import ENTRY_OF, TERMS, has_final_bieup, glossary_rows
from test_notebooks import HANGUL, section

from tools import repository
from tools.korean import (Entry, cell_source, english_hash, markdown_cells, parse, render, skeleton,
                          translation_path)
from tools.korean_build import ROOT, build, english_notebooks, first_line, korean_path, problems, retranslated

NOTEBOOKS = english_notebooks()
IDS = [path.name for path in NOTEBOOKS]
# The sections every notebook ends with, as the whole series translates their headings.
HEADINGS = {"Learning objectives": "학습 목표", "Takeaways": "정리", "Exercises": "연습 문제",
            "Glossary · 용어집": "용어집 · Glossary", "핵심 요약": "핵심 요약", "References": "참고 문헌",
            "For the curious": "더 알고 싶은 사람을 위해"}


def english(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@functools.cache
def built(path) -> str:
    """What `make korean` writes for `path` now (the committed file is compared with it once, below)."""
    assert translation_path(path).exists(), f"{path.name} has no Korean translation, {translation_path(path).name}"
    return build(path)


def korean(path) -> dict:
    return json.loads(built(path))


def korean_markdown(path) -> list[tuple[int, str]]:
    return markdown_cells(korean(path))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_every_markdown_cell_has_a_current_translation(path):
    found = problems(path)
    assert not found, "the Korean edition is incomplete or stale:\n" + "\n".join(found)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_the_committed_korean_notebook_is_what_the_build_writes_now(path):
    assert korean_path(path).exists(), f"notebooks/ko/{path.name} is missing: run `make korean` and commit it"
    assert korean_path(path).read_text(encoding="utf-8") == built(path), (
        f"notebooks/ko/{path.name} is not what `make korean` builds from notebooks/{path.name} and its .ko.md "
        "now (an English notebook re-executed or edited, or an entry changed): run `make korean` and commit")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_code_cells_outputs_ids_and_metadata_are_the_english_ones(path):
    source, built = english(path), korean(path)
    assert [cell.get("id") for cell in built["cells"]] == [cell.get("id") for cell in source["cells"]], (
        f"ko/{path.name}: its cells (ids, order) differ from the English notebook's")
    for index, (en, ko) in enumerate(zip(source["cells"], built["cells"])):
        if en["cell_type"] == "markdown":
            assert {k: v for k, v in ko["metadata"].items() if k != "korean"} == en["metadata"], index
        else:
            assert ko == en, f"ko/{path.name}: cell {index} ({en['cell_type']}) differs from the English one"
    assert built["metadata"] == {k: v for k, v in source["metadata"].items() if k != "jupytext"}


def prose_blocks(markdown: str):
    """(block, is_heading, in_references) for each paragraph, list item, table row and heading."""
    in_references, blocks, current = False, [], None
    for line in re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S).splitlines():
        starts = re.match(r"\s*(#+ |[-*] |\d+\. |\|)", line)
        if not line.strip() or starts:
            current = None
        if line.startswith("#"):
            in_references = bool(re.search(r"참고 문헌|References", line))
        if line.strip():
            if current is None:
                current = [line, line.startswith("#"), in_references and bool(re.match(r"\s*[-*] ", line))]
                blocks.append(current)
            else:
                current[0] += "\n" + line
    return [tuple(block) for block in blocks]


QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”')
MARKUP = re.compile(r"<!--.*?-->|`[^`]*`|\$\$.*?\$\$|\$[^$\n]+\$|!?\[[^\]]*\]\([^)]*\)|<[^>]+>|https?://\S+", re.S)


def english_sentences(block: str, is_heading: bool, is_reference: bool) -> list[str]:
    """The rule: in a paragraph, list item, table row or heading, a sentence with no Hangul is English left
    untranslated, unless it is only code, formulas, links, images and quoted examples (nothing in Latin letters
    once those are removed), an entry of the references list, or (not in a heading) a list of terms: items
    split at , · / | ; or ' vs ', each of at most three words. A heading must have Hangul if it has letters."""
    if is_reference:
        return []
    if is_heading:
        return [block] if not HANGUL.search(block) and re.search(r"[A-Za-z]", MARKUP.sub(" ", block)) else []
    left = []
    for sentence in re.split(r"(?<=[.!?])\s+", block):
        rest = QUOTED.sub(" ", MARKUP.sub(" ", sentence))
        items = re.split(r"[,·/|;]| vs ", rest)
        if not HANGUL.search(sentence) and any(len(re.findall(r"[A-Za-z][A-Za-z'-]*", item)) > 3 for item in items):
            left.append(sentence)
    return left


def untranslated(markdown: str) -> list[str]:
    return [sentence for block, *kind in prose_blocks(markdown) for sentence in english_sentences(block, *kind)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_no_english_paragraph_is_left_untranslated(path):
    left = [f"cell {index}: {block!r}" for index, text in korean_markdown(path) for block in untranslated(text)]
    assert not left, f"ko/{path.name}: these paragraphs are still English; translate them in {path.stem}.ko.md:\n" + \
        "\n".join(left)


# 합쇼체 (-ㅂ니다, -ㅂ니까) and 해요체 (-어요, -세요, ...) endings, anywhere in the text.
POLITE = re.compile(r"([가-힣])(니다|니까)(?![가-힣])|[가-힣]*(?:세|[어아해에예네지군까나데게래돼봐워와져줘려여셔서])요(?![가-힣])")


def polite_endings(text: str) -> list[str]:
    return [match.group(0) for match in POLITE.finditer(text)
            if match.group(2) is None or has_final_bieup(match.group(1))]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_korean_is_haerache_and_avoids_the_ruled_out_phrases(path):
    text = "\n".join(text for _, text in korean_markdown(path))
    polite = polite_endings(text)
    assert not polite, f"ko/{path.name}: write 해라체 (한다, 이다, 하라), not -습니다/-ㅂ니다/-요: {polite}"
    found = {phrase: why for phrase, why in TERMS["avoid"].items() if phrase in text}
    assert not found, f"ko/{path.name}: {found}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_glossary_headings_and_twin_links(path):
    text = "\n".join(text for _, text in korean_markdown(path))
    english_text = "\n".join(source for _, source in markdown_cells(english(path)))
    rows = glossary_rows(text)
    assert rows == glossary_rows(english_text), f"ko/{path.name}: the glossary must keep the English rows as they are"
    wrong = [(en, ko) for en, ko in rows if not ko.startswith(ENTRY_OF.get(en, {}).get("ko", "\0"))]
    assert not wrong, f"ko/{path.name}: glossary rows not as notebooks/korean_terms.toml gives them: {wrong}"
    for heading, translated in HEADINGS.items():
        if re.search(rf"^## {re.escape(heading)}$", english_text, re.M):
            assert re.search(rf"^## {re.escape(translated)}$", text, re.M), \
                f"ko/{path.name}: the English has '## {heading}'; write it '## {translated}'"
    assert section(text, "핵심 요약") == section(english_text, "핵심 요약"), f"ko/{path.name}: keep the 핵심 요약 as it is"
    first = korean_markdown(path)[0][1]
    assert first.startswith(repository.colab_badge(repository.address(), f"ko/{path.name}")), \
        f"ko/{path.name}: its first cell must open with its own Colab badge (notebooks/ko/...)"
    assert f"[English](../{path.name})" in first, f"ko/{path.name}: its first cell must link to its English twin"
    assert f"[한국어판](ko/{path.name})" in english_text.split("\n\n")[0], \
        f"{path.name}: its first cell must link to its Korean twin, [한국어판](ko/{path.name})"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_numbers_and_links_are_the_english_ones(path):
    korean_cells = dict(korean_markdown(path))
    for index, cell in enumerate(english(path)["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        missing = set(re.findall(r"\d+(?:[.,]\d+)*", cell_source(cell))) - set(
            re.findall(r"\d+(?:[.,]\d+)*", korean_cells[index]))
        assert not missing, f"ko/{path.name}: cell {index} quotes {sorted(missing)} in English but not in Korean"
        for target in re.findall(r'(?:\]\(|src=")([^)"\s#]+)', korean_cells[index]):
            if not re.match(r"[a-z]+:", target):
                assert (korean_path(path).parent / target).exists(), \
                    f"ko/{path.name}: cell {index} links to {target}, which does not exist from notebooks/ko/"


def test_students_find_the_korean_edition_from_the_readmes():
    readme = (ROOT / "README.ko.md").read_text(encoding="utf-8")
    english_readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[README.ko.md](README.ko.md)" in english_readme.split("\n\n")[1], "README.md's top must link README.ko.md"
    missing = [name for name in IDS if f"](notebooks/ko/{name})" not in readme]
    assert not missing, f"README.ko.md's notebook map must link the Korean notebooks {missing}"
    assert not polite_endings(readme) and not untranslated(re.sub(r"^```.*?^```", "", readme, flags=re.M | re.S))


def test_every_korean_notebook_has_an_english_one():
    orphans = sorted({path.name for path in (ROOT / "notebooks" / "ko").glob("*.ipynb")} - set(IDS))
    assert not orphans, f"notebooks/ko/ holds {orphans}, whose English notebook is gone: delete them"


def test_make_test_does_not_execute_the_korean_notebooks():
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "--nbval", "-p", "no:xdist",
                           "notebooks"], cwd=ROOT, capture_output=True, text=True)
    assert f"notebooks/{IDS[0]}::Cell 0" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    assert "notebooks/ko/" not in done.stdout, "nbval would run notebooks/ko/ again: conftest.py must ignore it"


# ---- staleness detection, shown on a copy of one notebook -------------------------------------------------
SAMPLE = "08_homework_cross_attention.ipynb"


@pytest.fixture
def copy(tmp_path):
    (tmp_path / "notebooks").mkdir()
    for name in (SAMPLE, SAMPLE.replace(".ipynb", ".ko.md")):
        shutil.copy(ROOT / "notebooks" / name, tmp_path / "notebooks" / name)
    return tmp_path / "notebooks" / SAMPLE


def markdown_indices(notebook: dict) -> list[int]:
    return [index for index, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "markdown"]


def test_the_sample_is_current(copy):
    assert problems(copy) == []


def test_an_edited_english_cell_is_named_stale(copy):
    notebook = english(copy)
    index = markdown_indices(notebook)[2]
    old = cell_source(notebook["cells"][index])
    notebook["cells"][index]["source"] = old.replace("Write", "Now write", 1)
    copy.write_text(json.dumps(notebook), encoding="utf-8")
    found = problems(copy)
    named = f"notebooks/{SAMPLE}: cell {index} ({first_line(notebook['cells'][index]['source'])!r})"
    assert len(found) == 1 and found[0].startswith(named), found
    assert "changed since it was translated" in found[0] and "re-translate it" in found[0]
    assert english_hash(old) in found[0], "the message names the English text the entry translates"
    stale = json.loads(build(copy))["cells"][index]
    assert stale["metadata"]["korean"] == {"english_hash": english_hash(old)}, "the build records the old hash"


def test_a_retranslated_entry_is_recorded_current(copy):
    notebook = english(copy)
    index = markdown_indices(notebook)[2]
    notebook["cells"][index]["source"] = cell_source(notebook["cells"][index]) + "\nOne more sentence."
    copy.write_text(json.dumps(notebook), encoding="utf-8")
    assert len(problems(copy)) == 1
    retranslated(copy, index)
    assert problems(copy) == []
    with pytest.raises(ValueError, match=r"expected the index of a markdown cell of .*got 1$"):
        retranslated(copy, 1)
    done = subprocess.run([sys.executable, "-m", "tools.korean", "retranslated", str(copy), "1"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2 and "expected the index of a markdown cell" in done.stderr, done.stderr


def test_an_inserted_english_cell_is_named_untranslated_and_nothing_after_it(copy):
    notebook = english(copy)
    index = markdown_indices(notebook)[3]
    notebook["cells"].insert(index, {"cell_type": "markdown", "id": "inserted", "metadata": {},
                                     "source": "A new paragraph the translator has not seen."})
    copy.write_text(json.dumps(notebook), encoding="utf-8")
    found = problems(copy)
    assert found == [f"notebooks/{SAMPLE}: cell {index} ('A new paragraph the translator has not seen.') is not "
                     f"translated: run `python -m tools.korean skeleton notebooks/{SAMPLE}` and translate its "
                     "new entry"], found


def test_a_deleted_english_cell_leaves_its_entry_named(copy):
    notebook = english(copy)
    index = markdown_indices(notebook)[1]
    gone = cell_source(notebook["cells"].pop(index))
    copy.write_text(json.dumps(notebook), encoding="utf-8")
    found = problems(copy)
    assert len(found) == 1 and f"the entry en {english_hash(gone)}" in found[0] and "no longer exists" in found[0]


def test_a_missing_translation_is_named(copy):
    translation_path(copy).unlink()
    assert problems(copy) == [f"notebooks/{SAMPLE} has no Korean translation: run `python -m tools.korean "
                              f"skeleton notebooks/{SAMPLE}` and translate {SAMPLE.replace('.ipynb', '.ko.md')}"]


def test_the_register_and_paragraph_rules_tell_apart():
    assert polite_endings("어텐션을 계산합니다. 다음을 보세요. 결과가 나와요. 필요하다. 중요한 요약이다.") == \
        ["합니다", "보세요", "나와요"]
    assert untranslated("This paragraph was left in English.\n\n이 문단은 한국어다.") == \
        ["This paragraph was left in English."]
    assert untranslated("## Takeaways\n- `q_proj`, `k_proj`\n- $QK^T/\\sqrt{d}$\n![a figure](../images/x.png)\n"
                        "- query, key, value\n\n## 참고 문헌\n- Vaswani et al., Attention Is All You Need.") == \
        ["## Takeaways"]


def test_rewritten_links_point_from_notebooks_ko():
    from tools.korean_build import rewrite_links

    slug = repository.slug(repository.address())
    text = (f"[![Open In Colab](https://b.svg)](https://colab.research.google.com/github/{slug}/blob/main/notebooks/"
            "03_attention.ipynb) · [English](ko/03_attention.ipynb) ![x](../images/x.png) "
            '<img src="../images/y.png"> [05](05_encoder.ipynb#top) [terms](korean_terms.toml) [a](#anchor)')
    assert rewrite_links(text) == (
        f"[![Open In Colab](https://b.svg)](https://colab.research.google.com/github/{slug}/blob/main/notebooks/ko/"
        "03_attention.ipynb) · [English](../03_attention.ipynb) ![x](../../images/x.png) "
        '<img src="../../images/y.png"> [05](05_encoder.ipynb#top) [terms](../korean_terms.toml) [a](#anchor)')


def test_skeleton_keeps_a_stale_entry_adds_a_new_cell_and_drops_a_deleted_ones_entry(copy):
    notebook, before = english(copy), parse(translation_path(copy).read_text(encoding="utf-8"))
    cells = markdown_indices(notebook)
    notebook["cells"].insert(cells[7], {"cell_type": "markdown", "id": "new", "metadata": {}, "source": "New text."})
    notebook["cells"].pop(cells[5])  # the entry before[5] loses its cell
    notebook["cells"][cells[2]]["source"] = cell_source(notebook["cells"][cells[2]]) + "\nOne more sentence."
    copy.write_text(json.dumps(notebook), encoding="utf-8")
    skeleton(copy)
    after = parse(translation_path(copy).read_text(encoding="utf-8"))
    assert after[2] == before[2], "the stale entry keeps its Korean and the hash of the text it translates"
    assert after[6] == Entry(english_hash("New text."), "New text.") and before[5] not in after
    assert after[:6] + after[7:] == before[:5] + before[6:]
    assert len(problems(copy)) == 1 and "changed since it was translated" in problems(copy)[0]


def test_skeleton_and_parse_round_trip(copy):
    entries = parse(translation_path(copy).read_text(encoding="utf-8"))
    assert parse(render(entries)) == entries and all(isinstance(entry, Entry) for entry in entries)
