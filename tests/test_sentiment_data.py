import pytest

from anatomy.corpora import sentiment_data
from anatomy.corpora.sentiment_data import binary_label, load_reviews, read_rated_sentences, reviews_path


@pytest.fixture(scope="module")
def splits():
    return {name: load_reviews(name) for name in ("train", "validation", "test")}


def test_splits_are_disjoint_fixed_and_cover_every_clear_sentence(splits):
    rows = read_rated_sentences(reviews_path())
    assert len(rows) == 10_605  # Hutto & Gilbert's movie-review snippets, all of them
    clear = [(text, rating) for text, rating in rows if abs(rating) >= 0.5]
    assert sum(len(s) for s in splits.values()) == len(clear)
    assert [len(s) for s in splits.values()] == [8057, 1007, 1008]
    pairs = [set(zip(s.texts, s.ratings)) for s in splits.values()]
    assert sum(len(p) for p in pairs) == len(set.union(*pairs))  # no sentence in two splits
    assert load_reviews("test").texts == splits["test"].texts  # same split every time


def test_labels_follow_the_ratings(splits):
    for reviews in splits.values():
        assert all((label == 1) == (rating >= 0.5) for label, rating in zip(reviews.labels, reviews.ratings))
        assert all(abs(rating) >= 0.5 for rating in reviews.ratings)
    assert 0.45 < sum(splits["train"].labels) / len(splits["train"]) < 0.55
    assert [binary_label(r) for r in (0.5, 0.49, -0.49, -0.5)] == [1, None, None, 0]


def test_missing_data_names_the_fetch_command(tmp_path, monkeypatch):
    monkeypatch.setenv("ANATOMY_DATA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"movie-review data is missing.*fetch_reviews\(\)"):
        load_reviews("train", fetch=False)


def test_missing_data_when_the_fetch_fails(tmp_path, monkeypatch):
    monkeypatch.setenv("ANATOMY_DATA", str(tmp_path))
    monkeypatch.setattr(sentiment_data, "fetch_reviews", lambda: (_ for _ in ()).throw(OSError("offline")))
    with pytest.raises(FileNotFoundError, match="make install"):
        load_reviews("test")


def test_unknown_split():
    with pytest.raises(ValueError, match=r"split must be one of \('train', 'validation', 'test'\), got 'dev'"):
        load_reviews("dev")


def write_fake(tmp_path, monkeypatch, content: bytes):
    """A fake ratings file in a temporary data folder (no network: fetch=False)."""
    monkeypatch.setenv("ANATOMY_DATA", str(tmp_path))
    path = tmp_path / sentiment_data.REVIEWS_FILE
    path.write_bytes(content)
    return path


GOOD_LINE = b"1\t2.5\tA fine film.\r\n"


@pytest.mark.parametrize("content, wrong", [
    (b"", "it is empty"),
    (b"<!DOCTYPE html>\n<html><body>Rate limit exceeded</body></html>\n", r"it is an HTML page \(an error or login page"),
    (GOOD_LINE * 3 + b"4\tnot-a-number\tOops.\r\n", r"line 4 is not 'id<TAB>rating<TAB>sentence': '4\\tnot-a-number"),
    (GOOD_LINE * 2392, r"it has 2,392 lines, not 10,605 \(a download or copy that stopped early\?\)"),
    (GOOD_LINE * 10_605, r"its lines look right, but its SHA-256 is not c8293b0d"),
])
def test_a_file_that_is_not_the_ratings_is_refused_naming_what_is_wrong(tmp_path, monkeypatch, content, wrong):
    path = write_fake(tmp_path, monkeypatch, content)
    with pytest.raises(ValueError, match=rf"{path} is not the movie-review ratings file: {wrong}.*Fetch it again "
                                         rf"\(it replaces the file\): .*fetch_reviews\(\)"):
        load_reviews("train", fetch=False)


def test_a_real_file_cut_short_is_refused_not_split_differently(tmp_path, monkeypatch):
    lines = reviews_path().read_bytes().splitlines(keepends=True)
    write_fake(tmp_path, monkeypatch, b"".join(lines[:3000]))
    with pytest.raises(ValueError, match="it has 3,000 lines, not 10,605"):
        load_reviews("test", fetch=False)


def test_fetch_keeps_a_good_file_without_downloading(tmp_path, monkeypatch):
    write_fake(tmp_path, monkeypatch, reviews_path().read_bytes())
    monkeypatch.setattr(sentiment_data.subprocess, "run", lambda *a, **k: pytest.fail("no download was needed"))
    assert sentiment_data.fetch_reviews() == tmp_path / sentiment_data.REVIEWS_FILE


def test_a_subset_never_silently_returns_fewer(splits):
    assert len(splits["test"].subset(10)) == 10
    for size in (0, -5, 2000, 2.5):
        with pytest.raises(ValueError, match=rf"size must be an integer in \[1, 1008\], got {size} \(this split has 1,008"):
            splits["test"].subset(size)


def test_what_is_wrong_names_raw_that_is_not_bytes():
    # None raised AttributeError: 'NoneType' object has no attribute 'strip'; a str was read as if bytes (#37)
    for raw, kind in ((None, "NoneType"), ("<html>", "str")):
        with pytest.raises(TypeError, match=f"raw must be bytes, got {kind}"):
            sentiment_data.what_is_wrong(raw)
    assert sentiment_data.what_is_wrong(b"<html>not found</html>").startswith("it is an HTML page")
