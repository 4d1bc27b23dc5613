# The push to a profiling server (src/push): the queue, backoff, URL and checks, and the thread
# against a responder on 127.0.0.1 in the test program (its TSan twin checks the thread boundary).
perftop_unit_test(test_push
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/push/test_push.c
  LIBS perftop_push perftop_util Threads::Threads TSAN)
