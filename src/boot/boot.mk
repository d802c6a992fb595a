# Start-up: the bootstrap through PMIx (docs/design.md, decision 7) and the
# library's init/finalize sequence that runs on it (src/core/init.c).
libweft_internal_la_SOURCES += \
	src/boot/pmix_boot.c \
	src/boot/launcher_watch.c \
	src/boot/locality.c \
	src/boot/exchange.c \
	src/boot/exchange_local.c \
	src/core/init.c \
	src/core/query.c
noinst_HEADERS += \
	src/boot/boot.h \
	src/boot/boot_pmix.h \
	src/core/init.h \
	src/core/init_seq.h
