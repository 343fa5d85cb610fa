from django.apps import AppConfig


class DemotionConfig(AppConfig):
    name = "factcheck.demotion"
    label = "demotion"

    def ready(self):
        from factcheck.demotion.receivers import enqueue_demotion, enqueue_new_posts
        from factcheck.posts.signals import posts_ingested
        from factcheck.ratings.signals import rating_created

        rating_created.connect(enqueue_demotion, dispatch_uid="demotion.enqueue_demotion")
        posts_ingested.connect(enqueue_new_posts, dispatch_uid="demotion.enqueue_new_posts")
