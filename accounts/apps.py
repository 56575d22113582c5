from typing import Any

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self) -> None:
        # Registers the OpenAPI description of our authentication class.
        from django.contrib.auth.models import User
        from django.db.models.signals import post_delete, post_save

        from accounts import schema  # noqa: F401
        from accounts.allauth_fixes import apply

        apply()

        # Cache invalidation, not domain flow: a user saved or deleted by any path (admin,
        # allauth, account deletion) must not stay signed in from a cached snapshot
        # (accounts/sessions.py).
        post_save.connect(_forget_user, sender=User, dispatch_uid="accounts.forget_user.save")
        post_delete.connect(_forget_user, sender=User, dispatch_uid="accounts.forget_user.delete")
        # The snapshot carries the profile's chosen language too.
        from accounts.models import Profile

        post_save.connect(
            _forget_profile_user, sender=Profile, dispatch_uid="accounts.forget_user.profile"
        )


def _forget_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    from accounts.sessions import forget_user_now_and_on_commit

    forget_user_now_and_on_commit(instance.pk)


def _forget_profile_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    from accounts.sessions import forget_user_now_and_on_commit

    forget_user_now_and_on_commit(instance.user_id)
