from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import Count
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.utils import timezone

from factcheck.core.services import model_snapshot
from factcheck.partners import services
from factcheck.partners.forms import ApiClientCreateForm, ExtendAccreditationForm, InviteForm
from factcheck.partners.models import ApiClient, Membership, Partner, User


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]
    fields = ["user", "role", "created_at"]
    readonly_fields = ["created_at"]


class AccreditationFilter(admin.SimpleListFilter):
    title = "accreditation"
    parameter_name = "accreditation"

    def lookups(self, request, model_admin):
        return [("valid", "Valid"), ("expiring", "Expires within 30 days"), ("expired", "Expired")]

    def queryset(self, request, queryset):
        today = timezone.localdate()
        if self.value() == "valid":
            return queryset.filter(accredited_until__gte=today)
        if self.value() == "expiring":
            return queryset.filter(
                accredited_until__gte=today,
                accredited_until__lte=today + timezone.timedelta(days=30),
            )
        if self.value() == "expired":
            return queryset.filter(accredited_until__lt=today)
        return queryset


@admin.register(Partner)
class PartnerAdmin(admin.ModelAdmin):
    list_display = ["name", "status", "accredited_until", "member_count", "languages_display"]
    list_filter = ["status", AccreditationFilter]
    search_fields = ["name", "slug", "accreditation_id"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]
    actions = ["suspend", "reinstate", "extend_accreditation"]
    readonly_fields = ["created_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(_member_count=Count("memberships"))

    @admin.display(description="members", ordering="_member_count")
    def member_count(self, obj):
        return obj._member_count

    @admin.display(description="languages")
    def languages_display(self, obj):
        return ", ".join(obj.languages)

    def save_model(self, request, obj, form, change):
        before = None
        if change:
            before = model_snapshot(Partner.objects.get(pk=obj.pk), services.PARTNER_AUDIT_FIELDS)
        services.partner_save(partner=obj, actor=request.user, created=not change, before=before)

    @admin.action(description="Suspend selected partners (releases their claims)")
    def suspend(self, request, queryset):
        for partner in queryset:
            services.partner_suspend(
                partner=partner, actor=request.user, reason="Suspended by an admin."
            )
        self.message_user(request, f"Suspended {len(queryset)} partner(s).", messages.SUCCESS)

    @admin.action(description="Reinstate selected partners")
    def reinstate(self, request, queryset):
        for partner in queryset:
            services.partner_reinstate(partner=partner, actor=request.user)
        self.message_user(request, f"Reinstated {len(queryset)} partner(s).", messages.SUCCESS)

    @admin.action(description="Extend accreditation of selected partners…")
    def extend_accreditation(self, request, queryset):
        if "apply" in request.POST:
            form = ExtendAccreditationForm(request.POST)
            if form.is_valid():
                for partner in queryset:
                    services.partner_extend_accreditation(
                        partner=partner, actor=request.user, until=form.cleaned_data["until"]
                    )
                self.message_user(
                    request,
                    f"Extended accreditation of {len(queryset)} partner(s) to "
                    f"{form.cleaned_data['until']:%Y-%m-%d}.",
                    messages.SUCCESS,
                )
                return None
        else:
            form = ExtendAccreditationForm(
                initial={"until": timezone.localdate().replace(year=timezone.localdate().year + 1)}
            )
        return render(
            request,
            "admin/partners/partner/extend_accreditation.html",
            {
                **self.admin_site.each_context(request),
                "form": form,
                "partners": queryset,
                "opts": self.model._meta,
                "title": "Extend accreditation",
            },
        )


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    list_display = ["email", "name", "partner_display", "is_active", "is_staff", "last_login"]
    list_filter = ["is_active", "is_staff", "groups", "memberships__partner"]
    search_fields = ["email", "name"]
    ordering = ["email"]
    actions = ["deactivate", "resend_invite"]
    fieldsets = [
        (None, {"fields": ["email", "name", "password"]}),
        ("Access", {"fields": ["is_active", "is_staff", "is_superuser", "groups"]}),
        ("Dates", {"fields": ["last_login", "date_joined"]}),
    ]
    readonly_fields = ["last_login", "date_joined"]
    add_form = InviteForm

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("memberships__partner")

    @admin.display(description="partner")
    def partner_display(self, obj):
        return ", ".join(f"{m.partner} ({m.get_role_display()})" for m in obj.memberships.all())

    def add_view(self, request, form_url="", extra_context=None):
        """Adding a user is inviting them: no password is set here."""
        if not self.has_add_permission(request):
            return super().add_view(request, form_url, extra_context)
        form = InviteForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            user = services.user_invite(
                email=data["email"],
                name=data["name"],
                partner=data["partner"],
                role=data["role"],
                moderator=data["moderator"],
                actor=request.user,
                request=request,
            )
            self.message_user(
                request,
                f"Invited {user.email}: they will get an email with a link to set a password.",
            )
            return redirect("admin:partners_user_changelist")
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "opts": self.model._meta,
            "title": "Invite a user",
        }
        return TemplateResponse(request, "admin/partners/user/invite.html", context)

    @admin.action(description="Deactivate selected users (releases their claims, revokes tokens)")
    def deactivate(self, request, queryset):
        for user in queryset:
            services.member_deactivate(user=user, actor=request.user)
        self.message_user(request, f"Deactivated {len(queryset)} user(s).", messages.SUCCESS)

    @admin.action(description="Send the set-password email again")
    def resend_invite(self, request, queryset):
        for user in queryset:
            services.user_send_invite(user=user, request=request)
        self.message_user(request, f"Sent {len(queryset)} email(s).", messages.SUCCESS)


@admin.register(ApiClient)
class ApiClientAdmin(admin.ModelAdmin):
    list_display = ["name", "scopes_display", "user", "token_prefix", "last_used_at", "revoked_at"]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "token_prefix", "user__email"]
    readonly_fields = ["token_prefix", "created_at", "created_by", "last_used_at", "revoked_at"]
    autocomplete_fields = ["user"]
    actions = ["revoke"]

    @admin.display(description="scopes")
    def scopes_display(self, obj):
        return ", ".join(obj.scopes)

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = ApiClientCreateForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["name", "scopes", "user"]
        return ["name", "scopes", "user", *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return ["scopes", "user", *self.readonly_fields]

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        client, token = services.api_client_create(
            name=form.cleaned_data["name"],
            scopes=form.cleaned_data["scopes"],
            user=form.cleaned_data.get("user"),
            actor=request.user,
        )
        obj.pk = client.pk
        request._new_api_token = token

    def response_add(self, request, obj, post_url_continue=None):
        """Show the token once, on this page only; it is not stored anywhere."""
        context = {
            **self.admin_site.each_context(request),
            "client": ApiClient.objects.get(pk=obj.pk),
            "token": request._new_api_token,
            "opts": self.model._meta,
            "title": "Copy the new token now",
        }
        return TemplateResponse(request, "admin/partners/apiclient/token_created.html", context)

    @admin.action(description="Revoke selected tokens")
    def revoke(self, request, queryset):
        for client in queryset:
            services.api_client_revoke(client=client, actor=request.user)
        self.message_user(request, f"Revoked {len(queryset)} token(s).", messages.SUCCESS)
