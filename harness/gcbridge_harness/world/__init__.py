"""The world around the app: the sample customer backend
(:mod:`~gcbridge_harness.world.backend`), a client of the service
(:mod:`~gcbridge_harness.world.service`) and test pages on another origin
(:mod:`~gcbridge_harness.world.frames`). None of it knows of the app or an engine.
"""
