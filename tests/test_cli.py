import subprocess
import sys

from awm.builder.dialect import style_for
from awm.builder.world import make_scenario
from awm.cli import main


def test_inspect_prints_scenario_tables_tools_tasks(corpus, capsys):
    assert main(["--home", str(corpus.home), "inspect", "dental_clinic__00"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dental_clinic__00: ")
    assert "Tables (" in out and "rows" in out
    style = style_for(make_scenario("dental_clinic", 0).seed).name  # naming/paging/filters/errors/bodies
    assert style.count("/") == 4 and "Tools (" in out and f"; API style {style})" in out
    assert "Tasks (10;" in out and "verified" in out


def test_inspect_unknown_environment_is_a_clear_error(corpus, capsys):
    assert main(["--home", str(corpus.home), "inspect", "dental_clinic__09"]) == 2
    assert "no environment dental_clinic__09" in capsys.readouterr().err
    assert main(["--home", str(corpus.home), "inspect", "../../etc"]) == 2
    assert "invalid environment id" in capsys.readouterr().err


def test_console_script_is_installed():
    out = subprocess.run([sys.executable, "-m", "awm.cli", "domains"], capture_output=True, text=True, check=True)
    assert "built-in domains" in out.stdout
