// libplist (Debian's libplist-dev), called in-process by the PeerRatios benchmark.
#include <plist/plist.h>
