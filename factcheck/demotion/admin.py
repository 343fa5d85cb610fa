from django.contrib import admin, messages

from factcheck.demotion import services
from factcheck.demotion.models import AuthorStanding, Demotion, DemotionChange, DemotionPolicy


@admin.register(DemotionPolicy)
class DemotionPolicyAdmin(admin.ModelAdmin):
    """One row per verdict: admins change the values, never add or delete verdicts. Every save
    goes through the audited service and re-applies the posts of that verdict."""

    list_display = ["verdict", "multiplier", "show_label", "strike", "updated_at"]
    fields = ["verdict", "multiplier", "show_label", "strike", "updated_at", "propagated_at"]
    readonly_fields = ["verdict", "updated_at", "propagated_at"]
    ordering = ["id"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        services.demotion_policy_update(
            policy=obj,
            actor=request.user,
            multiplier=obj.multiplier,
            show_label=obj.show_label,
            strike=obj.strike,
        )
        if not form.has_changed():
            return
        self.message_user(
            request,
            f"Saved. Posts rated “{obj.get_verdict_display()}” are being recomputed; the "
            "ranker sees the new values through the change feed within a minute.",
            messages.INFO,
        )


class ReadOnlyAdmin(admin.ModelAdmin):
    """Written only by the demotion pipeline."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Demotion)
class DemotionAdmin(ReadOnlyAdmin):
    list_display = [
        "external_id",
        "multiplier",
        "label",
        "removed",
        "post_multiplier",
        "author_multiplier",
        "copy_of",
        "updated_at",
        "version",
    ]
    list_filter = ["removed", "verdict", "label", ("copy_of", admin.EmptyFieldListFilter)]
    list_select_related = ["copy_of"]
    search_fields = ["external_id", "author_external_id"]
    readonly_fields = [f.name for f in Demotion._meta.fields]


@admin.register(DemotionChange)
class DemotionChangeAdmin(ReadOnlyAdmin):
    list_display = ["seq", "external_id", "multiplier", "label", "removed", "at"]
    search_fields = ["external_id"]
    readonly_fields = [f.name for f in DemotionChange._meta.fields]
    show_full_result_count = False  # the feed grows without bound; COUNT(*) would be slow


@admin.register(AuthorStanding)
class AuthorStandingAdmin(ReadOnlyAdmin):
    list_display = ["author_external_id", "strikes", "multiplier", "penalty_until", "recheck_at"]
    list_filter = ["multiplier"]
    search_fields = ["author_external_id"]
    readonly_fields = [f.name for f in AuthorStanding._meta.fields]
