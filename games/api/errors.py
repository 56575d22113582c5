"""The API's exception handler: the games' own errors as RFC 9457 problems (codes in
infrastructure.problems' catalogue), everything else as infrastructure.problems answers it."""

from __future__ import annotations

import logging
import math
from typing import Any

from django.utils.translation import gettext
from rest_framework.response import Response
from rest_framework.views import set_rollback

from games.api.refusals import engine_error_detail
from games.archive import ArchiveUnreadableError
from games.engine.errors import EngineError
from games.presentation import game_representation
from games.services import (
    AnalysisUnavailableError,
    CertificationError,
    ChancesUnavailableError,
    DailyDayNotPlayableError,
    DifficultyUnavailableError,
    IdempotencyKeyReusedError,
    SolverLimitError,
    VariantNotOfferedError,
    VersionConflictError,
)
from games.variants import UnknownVariantError, offered_variant_names
from infrastructure.problems import api_exception_problem, problem_response

logger = logging.getLogger(__name__)


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's exception handler, answering every error as problem+json: the games' own errors
    here, Django's and DRF's by infrastructure.problems."""
    # Every error leaves the database as it was: a rejected request changes nothing.
    set_rollback()
    if isinstance(exc, VersionConflictError):
        return problem_response("version_conflict", str(exc), game=game_representation(exc.game))
    if isinstance(exc, UnknownVariantError):  # an EngineError: answered with its own code
        return problem_response(
            "unknown_variant", engine_error_detail(exc), variants=offered_variant_names()
        )
    if isinstance(exc, EngineError):
        if exc.details:
            return problem_response(exc.code, engine_error_detail(exc), details=exc.details)
        return problem_response(exc.code, engine_error_detail(exc))
    if isinstance(exc, AnalysisUnavailableError):
        retry_after = exc.extra.get("retry_after")
        return problem_response(
            exc.code,
            str(exc),
            headers=None if retry_after is None else {"Retry-After": str(retry_after)},
            **exc.extra,
        )
    if isinstance(exc, DailyDayNotPlayableError):
        return problem_response("validation_error", str(exc), errors={"date": [str(exc)]})
    if isinstance(exc, VariantNotOfferedError):
        return problem_response("variant_not_offered", str(exc))
    if isinstance(exc, ChancesUnavailableError):
        return problem_response(exc.code, str(exc))
    if isinstance(exc, IdempotencyKeyReusedError):
        return problem_response("idempotency_key_reused", str(exc))
    if isinstance(exc, SolverLimitError):
        retry = str(max(1, math.ceil(exc.wait)))
        return problem_response("throttled", str(exc), headers={"Retry-After": retry})
    if isinstance(exc, DifficultyUnavailableError):
        return problem_response("difficulty_unavailable", str(exc), headers={"Retry-After": "300"})
    if isinstance(exc, ArchiveUnreadableError):
        # Never a silent wrong answer: a missing, unreachable or altered archive file (its
        # checksum) is the operator's to repair; the log says which file and why.
        logger.error("archived log unreadable: %s", exc)
        return problem_response(
            "archive_unreadable",
            gettext("This game's history is archived and could not be read back; try again later."),
        )
    if isinstance(exc, CertificationError):
        logger.error("certification failed: %s", exc)
        return problem_response("deal_unavailable", str(exc))
    response = api_exception_problem(exc)
    if response is not None and response.data.get("code") == "unknown_variant":
        response.data["variants"] = (
            offered_variant_names()
        )  # a variant's name refused by a serializer
    return response
