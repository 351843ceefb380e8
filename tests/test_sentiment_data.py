import pytest

from anatomy import sentiment_data
from anatomy.sentiment_data import binary_label, load_reviews, read_rated_sentences, reviews_path


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
