"""Creates (or resets) Quarry's service account in Superset, with the password from the environment.

Run with the Superset environment's Python and Quarry's Superset environment variables. The password
is read from QUARRY_SERVICE_PASSWORD, never from the command line, where `ps` would show it.
"""

import os
import sys

from superset.app import create_app

USERNAME = sys.argv[1]

app = create_app()
with app.app_context():
    security = app.appbuilder.sm
    password = os.environ["QUARRY_SERVICE_PASSWORD"]
    user = security.find_user(username=USERNAME)
    if user is None:
        created = security.add_user(
            USERNAME, "Quarry", "Service", "quarry-service@localhost", security.find_role("Admin"), password=password
        )
        if not created:
            sys.exit("the service account could not be created")
    else:
        security.reset_password(user.id, password)
