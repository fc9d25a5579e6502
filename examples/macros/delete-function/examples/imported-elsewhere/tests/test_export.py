from app.export import export_name


def test_export_name():
    assert export_name("Q3 Report") == "q3_report.csv"
