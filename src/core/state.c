/* The one instance of the library state (see state.h). */
#include "config.h"

#include "core/state.h"

shmi_state_t shmi_state;
