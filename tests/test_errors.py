"""Every error a user can cause is a SheliError and keeps the base its callers catch; the
engine tells an outcomes file's error from a step's by its class, not its name."""

from __future__ import annotations

import pytest

from sheli.engine import OptionError, VerbError, run
from sheli.errors import SheliError
from sheli.files import TooLarge, WriteRefused
from sheli.outputs.cues import CuesError
from sheli.outputs.pdf import PdfError
from sheli.outputs.runofshow import DurationsError
from sheli.place import PlaceError
from sheli.rite.loader import SpecError
from sheli.rite.ranks import RankError
from sheli.scoring.outcomes import OutcomeFieldError, OutcomesError
from sheli.serve.errors import ApiError
from sheli.serve.store import StoreError
from sheli.text.corpus import UnknownPassage
from sheli.text.editions import ImportFailed
from sheli.text.kanripo import KanripoError
from sheli.text.search import EmptyQuery

#: each user error with the base its callers caught before SheliError was there
USER_ERRORS: list[tuple[type[Exception], type[Exception]]] = [
    (SpecError, Exception),
    (OptionError, SpecError),
    (RankError, Exception),
    (VerbError, Exception),
    (ImportFailed, Exception),
    (PlaceError, ValueError),
    (EmptyQuery, ValueError),
    (KanripoError, ValueError),
    (UnknownPassage, ValueError),
    (OutcomesError, ValueError),
    (OutcomeFieldError, ValueError),
    (CuesError, ValueError),
    (DurationsError, ValueError),
    (StoreError, RuntimeError),
    (PdfError, RuntimeError),
    (TooLarge, OSError),
    (WriteRefused, OSError),
]


@pytest.mark.parametrize(("cls", "base"), USER_ERRORS, ids=lambda c: c.__name__)
def test_a_user_error_is_a_sheli_error_and_keeps_its_base(
    cls: type[Exception], base: type[Exception]
) -> None:
    assert issubclass(cls, SheliError) and issubclass(cls, base)


def test_the_servers_answer_is_not_a_user_error() -> None:
    # an HTTP answer with its status (a 500 is the server's own failure), caught by the server
    assert not issubclass(ApiError, SheliError)


def test_an_outcomes_files_fault_reaches_the_caller_as_itself(tmp_path) -> None:
    # a file that lacks an arrow the run asks for: raised by the outcome source during a
    # step, it is not made into the step's SpecError
    f = tmp_path / "o.csv"
    f.write_text("round,pair,archer,arrow,hit,on_beat\n2,上耦,上射,1,true,\n", encoding="utf-8")
    with pytest.raises(OutcomesError) as caught:
        run("xiangshe", outcomes=f)
    assert not isinstance(caught.value, SpecError)
