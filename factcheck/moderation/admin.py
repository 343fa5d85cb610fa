"""Read-only views of the moderation records for admins: escalations are decided and appeals
answered in /moderation/ through the services (versioned, audited), never edited here."""

from django.contrib import admin

from factcheck.moderation.models import (
    Escalation,
    EscalationSignal,
    Notification,
    Removal,
    RemovalAppeal,
    WebhookDelivery,
)


class ReadOnlyAdmin(admin.ModelAdmin):
    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class SignalInline(admin.TabularInline):
    model = EscalationSignal
    fields = ["created_at", "source", "tier", "score", "details"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class NotificationInline(admin.TabularInline):
    model = Notification
    fields = ["created_at", "event", "tier", "email_sent_at", "email_recipients"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Escalation)
class EscalationAdmin(ReadOnlyAdmin):
    list_display = ["id", "post", "status", "tier", "sla_due_at", "action", "decided_by"]
    list_filter = ["status", "tier", "action"]
    search_fields = ["post__external_id"]
    list_select_related = ["post", "decided_by"]
    date_hierarchy = "created_at"
    inlines = [SignalInline, NotificationInline]


class DeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    fields = ["url", "status", "attempts", "last_status_code", "last_error", "delivered_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "escalation", "event", "tier", "email_sent_at"]
    list_filter = ["event", "tier"]
    inlines = [DeliveryInline]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "url", "status", "attempts", "last_status_code", "last_error"]
    list_filter = ["status"]


@admin.register(Removal)
class RemovalAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "post", "policy_code", "referral", "removed_by", "overturned_at"]
    list_filter = ["policy_code", "referral"]
    search_fields = ["post__external_id"]
    list_select_related = ["post", "removed_by"]


@admin.register(RemovalAppeal)
class RemovalAppealAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "removal", "status", "decided_by", "decided_at"]
    list_filter = ["status"]
    list_select_related = ["removal", "decided_by"]
