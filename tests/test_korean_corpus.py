"""anatomy.corpora.korean_corpus: KoNLPy's constitution and bills, checked by SHA-256, with clear errors."""
import shutil

import pytest

from anatomy.corpora import korean_corpus
from anatomy.corpora.korean_corpus import FILES, HELD_OUT, corpus_dir, korean_documents, korean_lines


def test_eleven_documents_and_a_held_out_split():
    documents = korean_documents()
    assert list(documents) == list(FILES)
    assert documents["kolaw/constitution.txt"].startswith("대한민국헌법\n")
    assert "\r" not in "".join(documents.values())
    train, held_out = korean_lines(), korean_lines(held_out=True)
    assert len(train) == 1875 and len(held_out) == 605
    assert held_out[0] == "국군부대의 소말리아 해역 파견연장 동의안" and all(line == line.strip() for line in train)
    assert set(HELD_OUT) < set(FILES)


def test_a_missing_corpus_names_the_command_to_fetch_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ANATOMY_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"missing or not KoNLPy 0.6.0's copy.*fetch_korean_corpus"):
        korean_documents(fetch=False)


def test_an_edited_file_is_refused(tmp_path, monkeypatch):
    source = corpus_dir()
    korean_documents()  # make sure the real files are there
    monkeypatch.setenv("ANATOMY_DATA", str(tmp_path))
    shutil.copytree(source, korean_corpus.corpus_dir())
    edited = korean_corpus.corpus_dir() / "kobill/1809890.txt"
    edited.write_text(edited.read_text(encoding="utf-8") + "편집", encoding="utf-8")
    with pytest.raises(FileNotFoundError, match="1809890.txt is missing or not KoNLPy"):
        korean_documents(fetch=False)
