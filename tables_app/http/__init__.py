"""The HTTP face of the library (`tables serve`, docs/api.md): app (the
routes, each calling one operation of tables_app.operations), fields (a
request's fields read by the operation's declared parameters), access
(tokens, loopback, origins), bodies (bounded request bodies), upload
(POST /api/v1/import), protocol (uvicorn's HTTP protocol), page (the game
master's page). Needs the serve extra; never imports tables_app.cli."""
