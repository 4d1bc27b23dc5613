/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probes: the forms that put a probe or a breakpoint somewhere: uprobes and kprobes through the
 * dynamic uprobe and kprobe PMUs, and hardware breakpoints (PERF_TYPE_BREAKPOINT).
 *
 * uprobe:PATH:FUNC[+OFF] has the uprobe PMU's type, config1 = a pointer to the binary's path,
 * config2 = the file offset of FUNC (+OFF): its address in the binary's symbol table (.symtab,
 * else .dynsym) taken to the file through the PT_LOAD segment that holds it; uretprobe sets the
 * PMU's retprobe format bit. kprobe:FUNC[+OFF] has config1 = a pointer to the function's name,
 * config2 = the offset. The kernel wants CAP_SYS_ADMIN for uprobes (since 2025's fix; before, as
 * for kprobes, CAP_PERFMON).
 *
 * mem:ADDR[/LEN][:rwx]: bp_addr, bp_len (default 4, a long for x), bp_type (default rw).
 * mem:SYMBOL is a global of the target (events_resolve): its address in the binary, moved by
 * where a running process (-p) has the binary mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/hw_breakpoint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/events_int.h"
#include "util/util.h"

struct elf_sym {
	uint64_t value, size;
	uint64_t offset;   /* in the file; UINT64_MAX when no PT_LOAD holds it in the file */
	uint64_t base;     /* the lowest PT_LOAD's address, page-aligned down */
	int etype;         /* ET_EXEC, ET_DYN */
};

static bool wanted_type(unsigned char t, bool func)
{
	return func ? t == STT_FUNC || t == STT_GNU_IFUNC : t == STT_OBJECT;
}

/* Looks name up in the symbol table of type sh_type; the nearest names go to sg. */
static bool find_in(Elf *e, Elf64_Word sh_type, const char *name, bool func, struct elf_sym *out,
		    struct suggest *sg)
{
	Elf_Scn *scn = NULL;
	bool have_local = false;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != sh_type || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; data && i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !wanted_type(GELF_ST_TYPE(sym.st_info), func))
				continue;
			const char *s = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!s || !*s)
				continue;
			if (strcmp(s, name) != 0) {
				if (sg)
					suggest_add(sg, s);
				continue;
			}
			/* A global of the name before a file's local one. */
			bool global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
			if (!have_local || global) {
				out->value = sym.st_value;
				out->size = sym.st_size;
			}
			if (global)
				return true;
			have_local = true;
		}
	}
	return have_local;
}

/* The symbol name (a function, or a data object) of the ELF file at path (shown as shown). 0, or
 * -1 with why. */
static int elf_symbol(const char *path, const char *shown, const char *name, bool func,
		      struct elf_sym *out, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "cannot open %s: %s", shown, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	int ret = -1;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		snprintf(why, whylen, "%s is not an ELF file", shown);
		goto out;
	}
	memset(out, 0, sizeof(*out));
	out->etype = eh.e_type;
	struct suggest sg;
	suggest_init(&sg, name);
	if (!find_in(e, SHT_SYMTAB, name, func, out, &sg) &&
	    !find_in(e, SHT_DYNSYM, name, func, out, &sg)) {
		char hint[400];
		suggest_text(&sg, hint, sizeof(hint));
		snprintf(why, whylen, "no %s '%s' in %s (neither in .symtab nor in .dynsym)%s",
			 func ? "function" : "global variable", name, shown, hint);
		goto out;
	}
	size_t nph = 0;
	out->offset = UINT64_MAX;
	out->base = UINT64_MAX;
	elf_getphdrnum(e, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_vaddr & ~(uint64_t)0xfff) < out->base)
			out->base = ph.p_vaddr & ~(uint64_t)0xfff;
		if (out->value >= ph.p_vaddr && out->value < ph.p_vaddr + ph.p_filesz)
			out->offset = out->value - ph.p_vaddr + ph.p_offset;
	}
	ret = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* An executable's path: as given when it has a '/', else the first in $PATH. */
static bool find_program(const char *name, char *out, size_t len)
{
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, F_OK) == 0;
	}
	const char *path = getenv("PATH");
	char dirs[4096];
	snprintf(dirs, sizeof(dirs), "%s", path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	char *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", *d ? d : ".", name);
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/* "FUNC[+OFF]" into func and off. */
static int split_offset(const char *spec, char *func, size_t len, uint64_t *off)
{
	const char *plus = strchr(spec, '+');
	size_t fl = plus ? (size_t)(plus - spec) : strlen(spec);
	*off = 0;
	if (fl == 0 || fl >= len || (plus && ev_number(plus + 1, off)))
		return -1;
	memcpy(func, spec, fl);
	func[fl] = '\0';
	return 0;
}

/* The probe PMU's type, and its retprobe bit when ret. */
static int probe_pmu(struct events_ctx *c, const char *text, const char *pmu, bool ret,
		     struct sampler_event *ev, char *err, size_t errlen)
{
	if (pmu_type(c, pmu, &ev->attr.type)) {
		if (!strcmp(pmu, "kprobe"))
			ev_err(err, errlen, "event '%s': this kernel has no kprobe PMU (no %s/kprobe: "
			       "kprobes are compiled out, CONFIG_KPROBES is off)", text, c->sysfs);
		else
			ev_err(err, errlen, "event '%s': this kernel has no uprobe PMU (no %s/uprobe: "
			       "CONFIG_UPROBE_EVENTS is off)", text, c->sysfs);
		return -1;
	}
	if (ret) {
		int r = pmu_set_format(c, pmu, "retprobe", 1, &ev->attr, err, errlen);
		if (r == -ENOENT)
			ev_err(err, errlen, "event '%s': the %s PMU has no format/retprobe", text, pmu);
		if (r)
			return -1;
	}
	return 0;
}

/* config1: a pointer to the path (uprobe) or function name (kprobe), kept by the context;
 * config2: the offset (into the file, or the function). */
static int probe_where(struct events_ctx *c, const char *text, const char *what, uint64_t offset,
		       struct sampler_event *ev, char *err, size_t errlen)
{
	char *kept = ev_keep(c, what, strlen(what));
	if (!kept) {
		ev_err(err, errlen, "event '%s': too many probes", text);
		return -1;
	}
	ev->attr.config1 = (uint64_t)(uintptr_t)kept;
	ev->attr.config2 = offset;
	return 0;
}

int probe_uprobe(struct events_ctx *c, const char *text, const char *spec, bool ret,
		 struct sampler_event *ev, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	char file[PATH_MAX], path[PATH_MAX], func[256], why[600];
	uint64_t off;
	if (!colon || colon == spec || (size_t)(colon - spec) >= sizeof(file) ||
	    split_offset(colon + 1, func, sizeof(func), &off) || (ret && off)) {
		ev_err(err, errlen, "event '%s': write %s:PATH:FUNC%s", text,
		       ret ? "uretprobe" : "uprobe", ret ? "" : "[+OFFSET]");
		return -1;
	}
	memcpy(file, spec, (size_t)(colon - spec));
	file[colon - spec] = '\0';
	if (!find_program(file, path, sizeof(path)) || !realpath(path, file)) {
		ev_err(err, errlen, "event '%s': no file '%s'%s", text, file,
		       strchr(file, '/') ? "" : " in PATH");
		return -1;
	}
	if (probe_pmu(c, text, "uprobe", ret, ev, err, errlen))
		return -1;
	if (!ev_capable(c, CAP_SYS_ADMIN)) {
		ev_err(err, errlen, "event '%s': uprobes need CAP_SYS_ADMIN (run perftop as root)",
		       text);
		return -1;
	}
	struct elf_sym sym;
	if (elf_symbol(file, file, func, true, &sym, why, sizeof(why))) {
		ev_err(err, errlen, "event '%s': %s", text, why);
		return -1;
	}
	if (sym.offset == UINT64_MAX || (sym.size && off >= sym.size)) {
		ev_err(err, errlen, "event '%s': %s", text, sym.offset == UINT64_MAX
		       ? "the function is in no loaded part of the file"
		       : "the offset is past the end of the function");
		return -1;
	}
	return probe_where(c, text, file, sym.offset + off, ev, err, errlen);
}

int probe_kprobe(struct events_ctx *c, const char *text, const char *spec, bool ret,
		 struct sampler_event *ev, char *err, size_t errlen)
{
	char func[256];
	uint64_t off;
	if (split_offset(spec, func, sizeof(func), &off) || (ret && off)) {
		ev_err(err, errlen, "event '%s': write %s", text,
		       ret ? "kretprobe:FUNC" : "kprobe:FUNC[+OFFSET]");
		return -1;
	}
	if (probe_pmu(c, text, "kprobe", ret, ev, err, errlen))
		return -1;
	if (!ev_capable(c, CAP_PERFMON) && !ev_capable(c, CAP_SYS_ADMIN)) {
		ev_err(err, errlen, "event '%s': kprobes need CAP_PERFMON or CAP_SYS_ADMIN (run "
		       "perftop as root)", text);
		return -1;
	}
	return probe_where(c, text, func, off, ev, err, errlen);
}

static bool is_symbol_name(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' || *s == '.' ||
		      (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* ":rwx" (each at most once) into bp_type; 0, or -1. */
static int bp_access(const char *s, uint32_t *type)
{
	*type = 0;
	for (; *s; s++) {
		uint32_t bit = *s == 'r' ? HW_BREAKPOINT_R : *s == 'w' ? HW_BREAKPOINT_W
			       : *s == 'x' ? HW_BREAKPOINT_X : 0;
		if (!bit || (*type & bit))
			return -1;
		*type |= bit;
	}
	return 0;
}

int probe_breakpoint(struct events_ctx *c, const char *text, const char *spec,
		     struct sampler_event *ev, struct ev_meta *meta, char *err, size_t errlen)
{
	(void)c;
	char where[128];
	const char *colon = strchr(spec, ':');
	size_t wl = colon ? (size_t)(colon - spec) : strlen(spec);
	uint64_t len = 0, addr = 0;
	uint32_t type = 0;
	if (wl == 0 || wl >= sizeof(where) || (colon && bp_access(colon + 1, &type)))
		goto bad;
	memcpy(where, spec, wl);
	where[wl] = '\0';
	char *slash = strchr(where, '/');
	if (slash) {
		*slash = '\0';
		if (ev_number(slash + 1, &len) || (len != 1 && len != 2 && len != 4 && len != 8))
			goto bad;
	}
	if (!type)
		type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (type & HW_BREAKPOINT_X && type != HW_BREAKPOINT_X) {
		ev_err(err, errlen, "event '%s': an execute breakpoint (x) cannot also be r or w",
		       text);
		return -1;
	}
	if (type == HW_BREAKPOINT_X && len && len != sizeof(long)) {
		ev_err(err, errlen, "event '%s': an execute breakpoint is %zu bytes long", text,
		       sizeof(long));
		return -1;
	}
	if (ev_number(where, &addr)) {
		if (!is_symbol_name(where))
			goto bad;
		snprintf(meta->symbol, sizeof(meta->symbol), "%s", where);
	}
	ev->attr.type = PERF_TYPE_BREAKPOINT;
	ev->attr.bp_type = type;
	ev->attr.bp_addr = addr;
	ev->attr.bp_len = len ? len : type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	/* A symbol's own size, when it is one a breakpoint can watch, unless /LEN said. */
	if (meta->symbol[0] && !len)
		ev->attr.bp_len = 0;
	return 0;
bad:
	ev_err(err, errlen, "event '%s': write mem:ADDR[/LEN][:rwx] or mem:SYMBOL[/LEN][:rwx] "
	       "(LEN 1, 2, 4 or 8)", text);
	return -1;
}

/* Where the process has the file mapped at offset 0 (its start), from /proc/PID/maps. */
static int mapped_start(const char *proc, pid_t pid, const char *file, uint64_t *start)
{
	char path[PATH_MAX + 64], line[PATH_MAX + 256];
	snprintf(path, sizeof(path), "%s/%d/maps", proc, (int)pid);
	FILE *f = fopen(path, "re");
	int ret = -1;
	while (f && ret && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi, &off, &name_at) < 3 ||
		    !name_at)
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		char *deleted = strstr(name, " (deleted)");
		if (deleted)
			*deleted = '\0';
		if (off == 0 && strcmp(name, file) == 0) {
			*start = lo;
			ret = 0;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

int probe_resolve_symbol(struct events_ctx *c, struct sampler_event *ev, const char *symbol,
			 const struct events_target *t, char *err, size_t errlen)
{
	(void)c;
	const char *proc = t && t->proc ? t->proc : "/proc";
	char file[PATH_MAX], exe[PATH_MAX], why[600];
	struct elf_sym sym;
	if (t && t->pid > 0) {
		snprintf(file, sizeof(file), "%s/%d/exe", proc, (int)t->pid);
		ssize_t n = readlink(file, exe, sizeof(exe) - 1);
		if (n <= 0) {
			ev_err(err, errlen, "event '%s': cannot read %s: %s", ev->name, file,
			       strerror(errno));
			return -1;
		}
		exe[n] = '\0';
		char *deleted = strstr(exe, " (deleted)");
		if (deleted)
			*deleted = '\0';
	} else if (t && t->command) {
		if (!find_program(t->command, file, sizeof(file))) {
			ev_err(err, errlen, "event '%s': cannot find the command '%s'", ev->name,
			       t->command);
			return -1;
		}
		snprintf(exe, sizeof(exe), "%s", file);
	} else {
		ev_err(err, errlen, "event '%s': a breakpoint on a symbol needs a target program "
		       "(-p PID or a command)", ev->name);
		return -1;
	}
	if (elf_symbol(file, exe, symbol, false, &sym, why, sizeof(why))) {
		ev_err(err, errlen, "event '%s': %s", ev->name, why);
		return -1;
	}
	uint64_t bias = 0, start;
	if (sym.etype == ET_DYN) {
		if (!(t && t->pid > 0)) {
			ev_err(err, errlen, "event '%s': %s is position-independent: where '%s' lands is "
			       "known only once it runs; start it and use -p PID", ev->name, exe,
			       symbol);
			return -1;
		}
		if (mapped_start(proc, t->pid, exe, &start)) {
			ev_err(err, errlen, "event '%s': %s is not mapped in process %d", ev->name, exe,
			       (int)t->pid);
			return -1;
		}
		bias = start - sym.base;
	}
	ev->attr.bp_addr = sym.value + bias;
	if (!ev->attr.bp_len)
		ev->attr.bp_len = sym.size == 1 || sym.size == 2 || sym.size == 8 ? sym.size
				  : HW_BREAKPOINT_LEN_4;
	return 0;
}
