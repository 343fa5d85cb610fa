from django.contrib import admin
from django.template.defaultfilters import truncatechars

from factcheck.posts.models import EngagementSnapshot, Post


class EngagementSnapshotInline(admin.TabularInline):
    model = EngagementSnapshot
    extra = 0
    ordering = ["-observed_at"]
    fields = [
        "observed_at",
        "shares",
        "views",
        "comments",
        "reactions",
        "reports_hate",
        "reports_violence",
    ]
    readonly_fields = fields
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Post)
class PostAdmin(admin.ModelAdmin):
    """Read-only: posts come from the platform through ingest, and their status changes only
    through claims, ratings and moderation decisions, each with its own audit trail."""

    list_display = [
        "external_id",
        "excerpt",
        "status",
        "language_tag",
        "trending_score_display",
        "shares",
        "views",
        "author_external_id",
        "published_at",
    ]
    list_filter = ["status", "language"]
    search_fields = ["=external_id", "=author_external_id", "author_name"]
    ordering = ["-trending_score"]
    date_hierarchy = "published_at"
    show_full_result_count = False  # no COUNT(*) over the whole table on every page
    inlines = [EngagementSnapshotInline]
    fieldsets = [
        (None, {"fields": ["external_id", "status", "url", "text"]}),
        ("Author", {"fields": ["author_external_id", "author_name"]}),
        ("Where and when", {"fields": ["language", "language_tag", "country", "published_at"]}),
        (
            "Latest engagement",
            {
                "fields": [
                    "trending_score",
                    "observed_at",
                    "shares",
                    "views",
                    "comments",
                    "reactions",
                    "reports_hate",
                    "reports_violence",
                ]
            },
        ),
        ("Record", {"fields": ["text_fingerprint", "created_at", "updated_at"]}),
    ]

    @admin.display(description="text")
    def excerpt(self, obj):
        # Escaped by the admin like any other value: post text is hostile input.
        return truncatechars(obj.text, 80)

    @admin.display(description="trending score", ordering="trending_score")
    def trending_score_display(self, obj):
        return f"{obj.trending_score:.2f}"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
