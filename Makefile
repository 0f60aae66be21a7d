# convgen build. `make` builds the library and the convgen program into build/;
# `make test` builds and runs the whole suite; `make SAN=1 test` does the same
# with address and undefined-behaviour sanitizers into build-san/; `make
# install PREFIX=/usr/local` (and DESTDIR, a staging root) installs the
# program, its man pages, the library with its header convgen.h and
# convgen.pc (scripts/install.sh), `make uninstall` removes them. CPPFLAGS and LDFLAGS reach every compile and link, for libraries
# installed under a prefix (`make CPPFLAGS=-I/opt/x/include LDFLAGS=-L/opt/x/lib`).
CC      ?= cc
.DEFAULT_GOAL := all
SAN     ?= 0
ifeq ($(SAN),1)
BUILD   := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT     := -O1
else
BUILD   := build
SANFLAGS :=
OPT     := -O2
endif
# -fPIC: one set of objects makes both libconvgen.a and libconvgen.so (Python's ctypes loads the latter)
CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow -Werror -g $(OPT) $(SANFLAGS) -fPIC -Isrc -DCL_TARGET_OPENCL_VERSION=120
LDLIBS  := -lOpenCL -lsqlite3 -lm -lpthread

# Open MPI for tune's scale-out (src/tune/team.c), when mpicc is there: its
# headers as system headers (no warnings of theirs), its libraries for linking.
MPI_CFLAGS := $(patsubst -I%,-isystem %,$(shell mpicc --showme:compile 2>/dev/null))
MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
ifeq ($(MPI_LIBS),)
MPI_CFLAGS := -DCONVGEN_NO_MPI
endif
LDLIBS  += $(MPI_LIBS)

# The ONNX reader (src/onnx), when protobuf-c is there: its C code generated
# from the onnx.proto of Debian's libonnx-dev by protoc-c into $(BUILD)/gen;
# without it convgen builds and `convgen import` says what to install.
# (Both paths may be given, as bench/h200-env.sh does where the packages are
# unpacked elsewhere.)
ONNX_PROTO   ?= /usr/include/onnx/onnx.proto
PROTOBUF_C_H ?= /usr/include/protobuf-c/protobuf-c.h
PROTOC_C     := $(shell command -v protoc-c 2>/dev/null)
ifneq ($(and $(PROTOC_C),$(wildcard $(ONNX_PROTO)),$(wildcard $(PROTOBUF_C_H))),)
ONNX_GEN   := $(BUILD)/gen/onnx/onnx.pb-c.c
ONNX_OBJ   := $(BUILD)/gen/onnx/onnx.pb-c.o
LDLIBS     += -lprotobuf-c
ONNX_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/onnx/*.c))
$(ONNX_OBJS): CFLAGS += -DCONVGEN_ONNX=1 -isystem $(BUILD)/gen
$(ONNX_OBJS): $(ONNX_GEN)
$(ONNX_GEN): $(ONNX_PROTO)
	@mkdir -p $(BUILD)/gen
	protoc-c --c_out=$(BUILD)/gen --proto_path=$(dir $(ONNX_PROTO)).. onnx/$(notdir $(ONNX_PROTO))
# generated code: compiled as it is, not held to our warnings
$(ONNX_OBJ): $(ONNX_GEN)
	$(CC) $(CPPFLAGS) -std=c11 -g $(OPT) $(SANFLAGS) -fPIC -w -I$(BUILD)/gen -c $< -o $@
endif

LIB_SRC  := $(filter-out src/cli/main.c src/server/server.c,$(wildcard src/*/*.c))
CLI_SRC  := src/cli/main.c
TEST_SRC := $(wildcard tests/*/test_*.c)
BENCH_SRC := $(wildcard bench/*.c)

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(ONNX_OBJ)
TEST_BIN := $(TEST_SRC:%.c=$(BUILD)/%)
BENCH_BIN := $(BENCH_SRC:%.c=$(BUILD)/%)
LIB      := $(BUILD)/libconvgen.a
SHLIB    := $(BUILD)/libconvgen.so
CLI      := $(BUILD)/convgen
SERVER   := $(BUILD)/convgen-server

# The commit goes into version.c, compiled on every build (FORCE), so that
# --version and the tuner's records say exactly what measured them.
GIT_COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
$(BUILD)/src/tune/team.o: CFLAGS += $(MPI_CFLAGS)
$(BUILD)/src/util/version.o: FORCE
$(BUILD)/src/util/version.o: CFLAGS += -DCONVGEN_COMMIT='"$(GIT_COMMIT)"'
FORCE:

.PHONY: all test clean golden install uninstall print-ldlibs python FORCE
PREFIX  ?= /usr/local
DESTDIR ?=
all: $(CLI) $(SERVER) $(SHLIB) $(TEST_BIN) $(BENCH_BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SHLIB): $(LIB_OBJ)
	$(CC) -shared $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

$(CLI): $(BUILD)/src/cli/main.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# convgen-server (src/server, docs/remote.md): the runtime and the
# utilities, and OpenCL; none of the compiler, the database or the importer,
# so that `make build/convgen-server` builds it (or a cross compiler, CC=...)
# where convgen cannot be built: a C compiler and OpenCL's headers suffice
SERVER_OBJ := $(BUILD)/src/server/server.o $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/rt/*.c src/util/*.c))
$(SERVER): $(SERVER_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ -lOpenCL -lm -lpthread

$(BUILD)/tests/%: tests/%.c tests/test.h tests/test_layer.h tests/test_export.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -Itests $< $(LIB) -o $@ $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(LIB) -o $@ $(LDLIBS)

test: all
	BUILD=$(BUILD) bash tests/run.sh

# Regenerate the golden kernels after a change to the IR or the lowering;
# review `git diff tests/golden` before committing.
golden: $(CLI)
	BUILD=$(BUILD) bash tests/golden.sh update

install: $(CLI) $(SERVER) $(LIB) $(SHLIB)
	CONVGEN_LIBS="$(LDFLAGS) $(LDLIBS)" bash scripts/install.sh $(BUILD) "$(DESTDIR)$(PREFIX)"

# The Python package with its library and the program its tune() runs, for
# `pip install ./python` (python/pyproject.toml; the copies are ignored by git)
python: $(SHLIB) $(CLI)
	cp $(SHLIB) python/convgen/libconvgen.so.tmp.$$$$ && mv python/convgen/libconvgen.so.tmp.$$$$ python/convgen/libconvgen.so
	cp $(CLI) python/convgen/convgen.tmp.$$$$ && mv python/convgen/convgen.tmp.$$$$ python/convgen/convgen

# what a program linking libconvgen.a links with (tests/cli/install.sh)
print-ldlibs:
	@echo $(LDFLAGS) $(LDLIBS)

uninstall:
	bash scripts/install.sh --uninstall "$(DESTDIR)$(PREFIX)"

clean:
	rm -rf build build-san python/convgen/libconvgen.so python/convgen/convgen

-include $(LIB_OBJ:.o=.d) $(BUILD)/src/cli/main.d $(BUILD)/src/server/server.d
