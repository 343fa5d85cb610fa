from django.urls import register_converter


class PostIdConverter:
    """The platform's post id (1–128 letters, digits, ``_ . : -``), as ingest accepts it."""

    regex = r"[A-Za-z0-9_.:\-]{1,128}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PostIdConverter, "post_external_id")
