app_name = "dashboard"

urlpatterns: list = []
