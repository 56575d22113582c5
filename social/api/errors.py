"""The social services' refusals as the API's problems (infrastructure.problems' catalogue)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rest_framework import exceptions

from infrastructure.problems import PROBLEMS
from social.services import SocialError, SocialLimitError


class SocialProblem(exceptions.APIException):
    def __init__(self, error: SocialError) -> None:
        self.problem_code = error.code
        self.status_code = PROBLEMS[error.code][0]
        super().__init__(str(error))


@contextmanager
def answered_as_problems() -> Iterator[None]:
    """Run a service: its refusals become problems (a limit is 429 with ``Retry-After``)."""
    try:
        yield
    except SocialLimitError as error:
        # The sentence names its wait already: it replaces DRF's detail, which would glue its
        # own "Expected available in N seconds." onto it ("retry in 60 seconds Expected ...").
        throttled = exceptions.Throttled(wait=error.wait)
        throttled.detail = exceptions.ErrorDetail(str(error), code=throttled.default_code)
        raise throttled from error
    except SocialError as error:
        raise SocialProblem(error) from error
