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
