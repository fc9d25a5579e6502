import inspect

from app.paging import paginate


def test_default_page_size():
    assert inspect.signature(paginate).parameters["page_size"].default == 25
    assert [len(page) for page in paginate(range(60))] == [25, 25, 10]
