# The device transport: host-initiated RMA, atomics and signals on device
# (GPU) memory (transports/device/device.h). It needs nothing at configure
# time: the device back ends it is handed are src/gpu's.
libweft_internal_la_SOURCES += \
	transports/device/device_ops.c \
	transports/device/device_path.c \
	transports/device/device_proxy.c
noinst_HEADERS += \
	transports/device/device.h
