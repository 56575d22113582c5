"""Staff pages: the dashboard, the replay viewer, the daily leaderboard and the pool top-up
button.

Thin views: the figures come from ``selectors``, the replay from ``games.replay``, the writes
from ``games.staff_operations`` (both shared with the games' admin, which stands below this
app); the pages are server-rendered in the admin's look, with SVG charts and no JavaScript.
Non-staff visitors are sent to the admin login.
"""

from __future__ import annotations

import datetime
import logging
from uuid import UUID

from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from games import selectors as games_selectors
from games import staff_operations as operations
from games.archive import ArchiveUnreadableError
from games.models import Game
from games.replay import clamp_version, replay
from infrastructure.admin_actions import actor_id
from infrastructure.db_routing import reads_may_lag
from staff import charts, fair_play, selectors
from staff.leaderboard import staff_daily_board

logger = logging.getLogger(__name__)


def _dashboard_charts(data: selectors.Dashboard) -> dict[str, object]:
    labels = [day.day.strftime("%m-%d") for day in data.games_per_day]
    games = charts.bar_chart(
        title="Games started and won per day (UTC)",
        labels=labels,
        series=[
            charts.Series("started", "s-started", [day.started for day in data.games_per_day]),
            charts.Series("won", "s-won", [day.won for day in data.games_per_day]),
        ],
    )
    daily = charts.bar_chart(
        title="Daily challenge: players and solvers per date",
        labels=[day.day.strftime("%m-%d") for day in data.daily],
        series=[
            charts.Series("players", "s-started", [day.participants for day in data.daily]),
            charts.Series("solvers", "s-won", [day.solvers for day in data.daily]),
        ],
        rate=charts.RateSeries("solve rate", "s-rate", [day.solve_rate for day in data.daily]),
    )
    modes = charts.percent_bars(rows=[(mode.label, mode.win_rate) for mode in data.modes])
    variants = charts.percent_bars(rows=[(rate.label, rate.win_rate) for rate in data.variants])
    return {
        "games_chart": games,
        "daily_chart": daily,
        "mode_bars": modes,
        "variant_bars": variants,
    }


@staff_member_required
@reads_may_lag
def dashboard(request: HttpRequest) -> HttpResponse:
    data = selectors.dashboard(now=timezone.now())
    context = {
        **admin.site.each_context(request),
        "title": "Staff dashboard",
        "data": data,
        "days": selectors.SERIES_DAYS,
        "can_top_up": request.user.has_perm("games.add_winnabledeal"),
        # First attempts by the band they were announced in (docs/difficulty.md): the
        # calibration's check that the bands' win rates fall from easy to hard.
        "bands": games_selectors.difficulty_bands(),
        **_dashboard_charts(data),
    }
    return render(request, "staff/dashboard.html", context)


@staff_member_required
@reads_may_lag
def game_replay(request: HttpRequest, game_id: UUID) -> HttpResponse:
    if not request.user.has_perm("games.view_game"):
        raise PermissionDenied
    game = get_object_or_404(Game.objects.select_related("owner"), pk=game_id)
    version = clamp_version(request.GET.get("version"), last=game.version)
    context = {
        **admin.site.each_context(request),
        "title": f"Replay of game {game.pk}",
        "opts": Game._meta,
    }
    try:
        shown = replay(game=game, version=version)
    except ArchiveUnreadableError as error:
        # The file is the operator's to repair (docs/architecture.md, "Archived games"): staff
        # are told which and why, as the API tells a player 503 archive_unreadable.
        logger.error("archived log unreadable: %s", error)
        context |= {"game": game, "error": str(error)}
        return render(request, "staff/archive_unreadable.html", context, status=503)
    context |= {"replay": shown, "fair_play_signals": fair_play.review_words(game=game)}
    return render(request, "staff/replay.html", context)


@staff_member_required
@reads_may_lag
def leaderboard(request: HttpRequest) -> HttpResponse:
    """A day's leaderboard for staff: each rank links to the account, the game and its
    replay; searchable by display name or e-mail address."""
    if not request.user.has_perm("games.view_game"):
        raise PermissionDenied
    today = timezone.now().date()
    try:
        day = datetime.date.fromisoformat(request.GET.get("day", ""))
    except ValueError:
        day = today
    try:
        page = int(request.GET.get("page", "1"))
    except ValueError:
        page = 1
    board = staff_daily_board(day=day, search=request.GET.get("q", "")[:100], page=page)
    context = {
        **admin.site.each_context(request),
        "title": f"Daily leaderboard of {day.isoformat()}",
        "board": board,
        "previous_day": day - datetime.timedelta(days=1),
        "next_day": day + datetime.timedelta(days=1) if day < today else None,
    }
    return render(request, "staff/leaderboard.html", context)


@require_POST
@staff_member_required
def pool_top_up(request: HttpRequest) -> HttpResponse:
    if not request.user.has_perm("games.add_winnabledeal"):
        raise PermissionDenied
    reason = request.POST.get("reason", "").strip()[:500]
    result = operations.pool_top_up(actor_id=actor_id(request), reason=reason)
    if result.error:
        messages.error(request, f"Pool top-up: {result.error}")
    elif result.queued:
        messages.success(request, f"Queued a top-up of {result.requested} deal(s) for the workers.")
    else:
        messages.success(
            request,
            f"No broker (embedded mode): certified {result.added} deal(s) now.",
        )
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = reverse("staff:dashboard")
    return HttpResponseRedirect(target)
