from app.feed import first_page


def test_feed_shows_ten_entries():
    assert len(first_page([f"entry {i}" for i in range(30)])) == 10
