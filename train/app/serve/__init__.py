"""``uno-env serve``: a local web app to play one seat against agents in the browser and to replay records.

``session.py`` holds the games (one human seat each), ``view.py`` turns a state into the JSON a seat
may see, ``app.py`` is the Starlette application and ``command.py`` the sub-command. The page itself
is plain HTML, CSS and JavaScript under ``static/``: no build step, nothing fetched from the internet.
"""
