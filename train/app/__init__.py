"""The applications: the ``uno-env`` command line, the training command, the web server, terminal play and the replay viewer."""
