app_name = "review"

urlpatterns: list = []
