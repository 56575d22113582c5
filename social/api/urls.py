from django.urls import path

from social.api import views

urlpatterns = [
    path("challenges/", views.ChallengesView.as_view(), name="challenges"),
    path("challenges/<uuid:challenge_id>/", views.ChallengeView.as_view(), name="challenge"),
    path(
        "challenges/<uuid:challenge_id>/close/",
        views.ChallengeCloseView.as_view(),
        name="challenge-close",
    ),
    path(
        "challenges/<uuid:challenge_id>/play/",
        views.ChallengePlayView.as_view(),
        name="challenge-play",
    ),
    path("friends/", views.FriendsView.as_view(), name="friends"),
    path("friends/<int:friendship_id>/", views.FriendView.as_view(), name="friend"),
    path(
        "friends/<int:friendship_id>/accept/",
        views.FriendAcceptView.as_view(),
        name="friend-accept",
    ),
    path("invites/", views.InvitesView.as_view(), name="invites"),
    path("invites/<uuid:invite_id>/", views.InviteView.as_view(), name="invite"),
    path("blocks/", views.BlocksView.as_view(), name="blocks"),
    path("blocks/<int:block_id>/", views.BlockView.as_view(), name="block"),
    path(
        "daily/<str:date>/leaderboard/friends/",
        views.FriendsLeaderboardView.as_view(),
        name="daily-leaderboard-friends",
    ),
]
