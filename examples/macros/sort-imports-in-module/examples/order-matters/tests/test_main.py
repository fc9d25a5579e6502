from app.main import main


def test_main_runs_in_prod(capsys):
    assert main([]) == 0
    assert capsys.readouterr().out == "running in prod mode\n"
