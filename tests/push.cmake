# The push to a profiling server (src/push): the queue, backoff, URL and checks, and the thread
# against a responder on 127.0.0.1 in the test program (its TSan twin checks the thread boundary).
perftop_unit_test(test_push
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/push/test_push.c
  LIBS perftop_push perftop_util Threads::Threads TSAN)

# perftop --push against a stand-in of Pyroscope's /ingest on 127.0.0.1 (tests/push/ingest_server.py):
# what a request carries, a 500 retried, a 400 not, a server that is down, the quiet -a agent.
add_test(NAME push_e2e
  COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/push/test_push_e2e.py $<TARGET_FILE:perftop>
          ${CMAKE_BINARY_DIR}/fixtures)
set_tests_properties(push_e2e PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)

# --push to https:// (a certificate made at test time, trusted through CURL_CA_BUNDLE and
# SSL_CERT_FILE, refused without), and the last partial window pushed when the agent gets SIGTERM.
foreach(t tls flush)
  add_test(NAME push_${t}
    COMMAND ${TEST_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/push/test_push_${t}.py $<TARGET_FILE:perftop>
            ${CMAKE_BINARY_DIR}/fixtures)
  set_tests_properties(push_${t} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 RESOURCE_LOCK perf)
endforeach()
