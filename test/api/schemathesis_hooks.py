"""Schemathesis hooks for test/api/fuzz.test.ts, loaded through SCHEMATHESIS_HOOKS.

The fuzzer signs in twice: with an API key, and with a session for the operations only a browser session
may call (two-factor settings). The API hands it both identities (GET /api/auth/api-keys lists the key's id,
GET /api/users the session user's email); revoking that key or deleting or deactivating that user would
leave every later request unauthenticated, so the rest of the run would test only the 401 path.

Deleting a CSV file needs a file to delete: the first case that names one removes it, so each case that
names a file of the source's folder gets it put back first and reaches the deletion, not only the first.
"""

import os

import schemathesis

FUZZER_KEY_ID = os.environ["QUARRY_FUZZER_KEY_ID"]
FUZZER_SESSION_EMAIL = os.environ["QUARRY_FUZZER_SESSION_EMAIL"]
FILES_DIR = os.environ["QUARRY_FUZZER_FILES_DIR"]
PROTECTED = {
    ("DELETE", "/api/auth/api-keys/{id}"): ("id", FUZZER_KEY_ID, "not-the-fuzzers-key"),
    ("DELETE", "/api/users/{email}"): ("email", FUZZER_SESSION_EMAIL, "not-the-fuzzer@test.local"),
    ("PATCH", "/api/users/{email}"): ("email", FUZZER_SESSION_EMAIL, "not-the-fuzzer@test.local"),
}


@schemathesis.hook
def before_call(context, case, kwargs):
    operation = (case.operation.method.upper(), case.operation.path)
    protected = PROTECTED.get(operation)
    if protected is not None:
        name, value, stand_in = protected
        if (case.path_parameters or {}).get(name) == value:
            case.path_parameters[name] = stand_in
    if operation == ("DELETE", "/api/sources/{source_name}/csv-files"):
        file_path = (case.query or {}).get("file_path")
        if isinstance(file_path, str) and os.path.dirname(file_path) == FILES_DIR and file_path.endswith(".csv"):
            with open(file_path, "a", encoding="utf-8") as file:
                if file.tell() == 0:
                    file.write("id,name\n1,ann\n")
