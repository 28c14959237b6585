"""Bad input is one line on stderr and exit status 2 (the CLI), or a UserError naming the
problem (the API), never a traceback and never silently accepted: a named `*_regression`
test for each input that once slipped through, and fuzz tests over random bad inputs."""
import pytest

from openlandlord.agents import make
from openlandlord.errors import UserError


# --- agent specs -----------------------------------------------------------------------------

@pytest.mark.parametrize("spec,problem", [
    ("random:seed=-1", "at least 0"),                               # numpy's ValueError before
    ("pimc:worlds=99999999999999999999", "between 1 and 65536"),    # overflowed the C int
    ("pimc:worlds=2147483648", "between 1 and 65536"),
    ("random:foo", "'foo'"),                                        # silently ignored before
    ("human:foo", "takes no argument"),
])
def test_agent_spec_regression(spec, problem):
    with pytest.raises(UserError, match=problem):
        make(spec, 0)


# --- the command line: one line on stderr, exit status 2 -------------------------------------

def _exits_2(capsys, argv, problem=None) -> str:
    """Run the CLI on `argv`; assert exit 2 and one stderr line (containing `problem`)."""
    from openlandlord.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert problem is None or problem in err[0], err
    return err[0]


@pytest.mark.parametrize("content", ['{"lr": NaN}', '{"lr": Infinity}', '{"lr": -0.1}',
                                     '{"grad_clip": -Infinity}', '{"target_temperature": NaN}'])
def test_train_config_nan_inf_negative_regression(content, tmp_path, capsys):
    # NaN compared false to every bound and trained to NaN weights before.
    path = tmp_path / "bad.json"
    path.write_text(content)
    out = tmp_path / "o"
    _exits_2(capsys, ["train", "--data", str(tmp_path / "none"), "--out", str(out),
                      "--config", str(path)], "training config")
    _exits_2(capsys, ["train", "--data", str(tmp_path / "none"), "--out", str(out),
                      "--set", content.strip("{}").replace('"', "").replace(": ", "=")],
             "training config")
    assert not out.exists()


# --- generate ----------------------------------------------------------------------------------

def test_generate_huge_deals_regression(tmp_path, capsys):
    # Built a list of every deal seed first: minutes of silence, then MemoryError.
    from distill.generate import MAX_DEALS

    for deals in ("1999999973", str(MAX_DEALS + 1)):
        _exits_2(capsys, ["generate", "--teacher", "random", "--deals", deals,
                          "--out", str(tmp_path / "o")], f"at most {MAX_DEALS:,}")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("temperature", ["inf", "nan", "-inf", "-1"])
def test_generate_temperature_inf_nan_regression(temperature, tmp_path, capsys):
    _exits_2(capsys, ["generate", "--teacher", "random", "--deals", "2", "--out", str(tmp_path / "o"),
                      f"--temperature={temperature}"], "--temperature must be a finite number")
    assert not (tmp_path / "o").exists()


def test_eval_overlap_reads_seeds_one_at_a_time_regression(tmp_path):
    from distill import seeds

    def run_seeds():
        yield from (1, 2, 3, seeds.EVAL_RESERVED.start + 1)
        raise AssertionError("read past the first evaluation seed: the seeds were listed")

    with pytest.raises(UserError, match="deal 3 would use seed 2000000001"):
        seeds.check_eval_overlap(run_seeds(), tmp_path)
    assert list(seeds.deal_seeds(7, 50)) == [seeds.deal_seed(7, i) for i in range(50)]
