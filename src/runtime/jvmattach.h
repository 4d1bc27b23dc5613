/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jvmattach: asks a running HotSpot JVM to write its perf map (/tmp/perf-PID.map, PID its own pid),
 * as `jcmd PID Compiler.perfmap` does, without jcmd: HotSpot's dynamic attach protocol, spoken
 * here (HotSpot 17's src/hotspot/os/linux/attachListener_linux.cpp and
 * src/hotspot/share/services/attachListener.cpp are the reference).
 *
 *   - The JVM listens on the UNIX socket /tmp/.java_pid<NSPID> once its attach listener runs. It
 *     starts it on a SIGQUIT when a file .attach_pid<NSPID> exists in its working directory (looked
 *     at first) or in /tmp, owned by its effective uid or root; without that file a SIGQUIT makes
 *     it print a thread dump, so no SIGQUIT is sent while its socket is there, to a process that
 *     does not catch SIGQUIT (a JVM still starting, -Xrs; the default action would kill it) or has
 *     no "Signal Dispatch" thread yet (the one that looks for the file), or to one started with
 *     -XX:+DisableAttachMechanism.
 *   - A request is NUL-terminated strings: the protocol version "1", the command, and three
 *     arguments; jcmd's is one string, the rest empty: "1\0jcmd\0Compiler.perfmap\0\0\0". The
 *     reply is the result code in decimal and a newline ("0\n": done), then the command's output;
 *     the JVM closes the connection after it. One request per connection.
 *   - The JVM takes a connection whose SO_PEERCRED uid is root, or is its own effective uid with
 *     its own effective gid (os::Posix::matches_effective_uid_and_gid_or_root in HotSpot 11 and
 *     later; HotSpot 8 took its own alone). perftop as root is taken by HotSpot 17 as it
 *     is, but a JVM in another user namespace sees root as its overflow uid: so the connecting
 *     thread takes the JVM's effective uid and gid for the connect (raw setresuid/setresgid, which
 *     change the calling thread alone, then back), which every version accepts.
 *
 * Safety (perftop is root, the JVM may be any user's, and any process may pretend to be one):
 * everything is reached from one descriptor of /proc/PID (a pid reused meanwhile fails the reads
 * instead of naming another process; the SIGQUIT goes through it, pidfd_send_signal), the JVM's /tmp
 * as /proc/PID/root then "tmp" opened O_NOFOLLOW, its working directory as /proc/PID/cwd; no
 * symlink is followed below them (the socket is opened O_PATH|O_NOFOLLOW and must be a socket of
 * the JVM's uid, then connected to through /proc/self/fd/N); the trigger file is made O_CREAT|O_EXCL|
 * O_NOFOLLOW in its /tmp (or in its working directory, only when its user could make it there:
 * root never makes a file for them where they could not), and removed only while its name is still
 * that file. Every wait is bounded (the socket JVMATTACH_SOCKET_WAIT_MS, a reply
 * JVMATTACH_REPLY_MS) and polled so that a stop flag ends it within JVMATTACH_STEP_MS; a reply is
 * read up to JVMATTACH_REPLY_MAX bytes, the rest left unread.
 *
 * Blocking (a few seconds at most when a JVM is slow or hostile: the socket's wait, then per
 * request the connection's and the reply's): called from jvmjob's thread, never from the
 * session's.
 */
#ifndef PERFTOP_RUNTIME_JVMATTACH_H
#define PERFTOP_RUNTIME_JVMATTACH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define JVMATTACH_SOCKET_WAIT_MS 500   /* for the socket after the SIGQUIT */
#define JVMATTACH_CONNECT_MS 200       /* for room in the listener's backlog */
#define JVMATTACH_REPLY_MS 2000        /* for a whole reply (the map is written before it) */
#define JVMATTACH_STEP_MS 10           /* how often a wait looks at the socket and the stop flag */
#define JVMATTACH_REPLY_MAX (64u << 10) /* bytes of a reply read; the rest is left unread */
#define JVMATTACH_PROC_MAX (8u << 20)  /* bytes of /proc/PID/maps, cmdline or environ read */
#define JVMATTACH_THREADS_MAX 4096     /* threads looked at for the signal dispatcher */

enum jvmattach_status {
	JVMATTACH_OK,      /* the JVM wrote its perf map */
	JVMATTACH_LATER,   /* not now (not catching SIGQUIT yet, no socket in time): ask again later */
	JVMATTACH_REFUSED, /* it will not (why says why): do not ask again */
	JVMATTACH_GONE,    /* no such process (any more), or not ours to look at: nothing to say */
};

struct jvmattach_result {
	enum jvmattach_status status;
	bool soon;          /* LATER: only starting (not catching SIGQUIT yet, or no signal dispatcher
			     * thread yet): worth asking again in a moment */
	bool signalled;     /* a SIGQUIT was sent */
	bool flags_known;   /* VM.flags was read (asked for and answered) */
	bool preserve_fp;   /* ... and lists -XX:+PreserveFramePointer */
	char why[200];      /* LATER, REFUSED: what happened, e.g. "started with -XX:+DisableAttachMechanism" */
};

/* The whole: asks process pid (in our pid namespace) for its perf map, and with ask_flags for its
 * VM.flags too (after a map, on a second connection). stop (may be NULL) ends any wait early
 * (then the status is LATER). Never follows the JVM's symlinks; always removes its trigger file. */
void jvmattach_run(uint32_t pid, bool ask_flags, const atomic_bool *stop, struct jvmattach_result *res);

/*
 * The steps, for jvmattach_run and the tests. A target is what jvmattach_run opens: the process
 * (a descriptor of /proc/PID, which the SIGQUIT is sent through), its pid in its own namespace,
 * its effective ids, and the directories of its /tmp and working directory (O_PATH descriptors;
 * cwd may be -1).
 */
struct jvmattach_target {
	int procfd;
	uint32_t pid, nspid;
	uid_t uid;
	gid_t gid;
	bool catches_quit;  /* SIGQUIT is in its SigCgt */
	bool dispatching;   /* ... and its signal dispatcher thread runs ("Signal Dispatch") */
	int tmpfd, cwdfd;
};
/* Attaches to a target: the socket if it is there, else the trigger file, a SIGQUIT and a wait;
 * then the requests. */
void jvmattach_target_run(const struct jvmattach_target *t, bool ask_flags, const atomic_bool *stop,
			  struct jvmattach_result *res);

/* The request of jcmd command (arg0 of protocol version 1) into buf: its length, 0 when it does
 * not fit or the command is longer than HotSpot takes (1024). */
size_t jvmattach_format(char *buf, size_t cap, const char *command);

/*
 * Over a connected stream socket fd (non-blocking or not): sends jcmd command and reads the reply
 * within timeout_ms, at most max - 1 bytes of it kept in reply (NUL-terminated; *len its length,
 * *cut whether more came than that). Returns the reply's result code (0: done; HotSpot's -1 for a
 * command that failed, 101 for a protocol version it does not speak), or below JVMATTACH_EBASE:
 * JVMATTACH_ETIME (no whole first line in time), JVMATTACH_EGARBAGE (a first line that is no
 * number), JVMATTACH_EIO (the send failed, or the connection closed before a whole first line),
 * JVMATTACH_ESTOP (stop was set).
 */
#define JVMATTACH_EBASE (-1000)
#define JVMATTACH_ETIME (-1001)
#define JVMATTACH_EGARBAGE (-1002)
#define JVMATTACH_EIO (-1003)
#define JVMATTACH_ESTOP (-1004)
int jvmattach_request(int fd, const char *command, char *reply, size_t max, size_t *len, bool *cut,
		      int timeout_ms, const atomic_bool *stop);

/* The attach socket name in directory dirfd: an O_PATH descriptor of it, when it is a socket
 * owned by uid (a symlink is not followed, and is not one); -1 with errno ENOENT (nothing there),
 * EPERM (another owner's) or ENOTSOCK (not a socket). */
int jvmattach_socket_at(int dirfd, const char *name, uid_t uid);

/* A connection to the socket of pathfd (jvmattach_socket_at's), within timeout_ms: its non-blocking
 * descriptor, or -1 with errno. With as_ids the calling thread connects as uid:gid (it must be
 * root; only its own ids change, and are restored before this returns). */
int jvmattach_connect(int pathfd, bool as_ids, uid_t uid, gid_t gid, int timeout_ms,
		      const atomic_bool *stop);

/* Makes the trigger file name in dirfd: new (O_CREAT|O_EXCL|O_NOFOLLOW), empty, 0600, owned by
 * uid:gid when we are root; its identity in *made. 0, or -errno (-EEXIST: something is there). */
int jvmattach_trigger(int dirfd, const char *name, uid_t uid, gid_t gid, struct stat *made);
/* Removes it, if name in dirfd is still the file made (same inode and change time: a file put
 * there since is left alone). */
void jvmattach_untrigger(int dirfd, const char *name, const struct stat *made);

/* Whether VM.flags' output (NUL-terminated) turns PreserveFramePointer on. */
bool jvmattach_flags_preserve_fp(const char *flags);

/* The JVM flag -XX:+NAME / -XX:-NAME last given among argument strings (a list of NUL-terminated
 * strings of len bytes; blanks also separate them when blanks): 1 on, 0 off, -1 not given. */
int jvmattach_flag_in(const char *args, size_t len, bool blanks, const char *name);

#endif
