from django.contrib import admin

from factcheck.ratings.models import Rating


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    """Read-only: ratings are append-only; a correction is a partner's new version."""

    list_display = [
        "created_at",
        "post",
        "partner",
        "verdict",
        "version",
        "checker",
        "is_flagged",
        "demotion_applied_at",
    ]
    list_filter = ["verdict", "partner", "advocates_violence", "attacks_protected_group"]
    search_fields = ["post__external_id", "headline", "partner__name", "checker__email"]
    date_hierarchy = "created_at"
    list_select_related = ["post", "partner", "checker"]
    readonly_fields = [f.name for f in Rating._meta.fields]

    @admin.display(boolean=True, description="flagged")
    def is_flagged(self, obj):
        return obj.is_flagged

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
