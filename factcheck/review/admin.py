from django.contrib import admin

from factcheck.review.models import Claim, Skip


@admin.register(Claim)
class ClaimAdmin(admin.ModelAdmin):
    """Read-only: claims change only through the review services, which audit them."""

    list_display = ["post", "checker", "partner", "state", "claimed_at", "expires_at", "ended_at"]
    list_filter = ["state", "partner"]
    search_fields = ["post__external_id", "checker__email"]
    list_select_related = ["post", "checker", "partner"]
    date_hierarchy = "claimed_at"
    readonly_fields = [f.name for f in Claim._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Skip)
class SkipAdmin(admin.ModelAdmin):
    list_display = ["post", "partner", "checker", "reason", "created_at"]
    list_filter = ["reason", "partner"]
    search_fields = ["post__external_id", "note"]
    list_select_related = ["post", "partner", "checker"]
    readonly_fields = [f.name for f in Skip._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
