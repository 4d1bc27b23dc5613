# The session engine on a feed of records built in memory (no kernel, no perf): windows, decay,
# events, off-CPU pairing, an export, a push to a responder on 127.0.0.1. Its TSan twin checks the
# hand-off to the pusher's thread.
perftop_unit_test(test_session
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/session/test_session.c
  LIBS perftop_session perftop_util Threads::Threads TSAN)
