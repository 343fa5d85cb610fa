from django.contrib import admin

from factcheck.core.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only: the audit log is append-only."""

    list_display = [
        "created_at",
        "actor_label",
        "action",
        "object_type",
        "object_repr",
        "request_id",
    ]
    list_filter = ["action", "object_type", "created_at"]
    search_fields = ["object_repr", "object_id", "actor_label", "request_id"]
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in AuditEvent._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
