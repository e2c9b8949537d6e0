#ifndef COWATCH_ROUTER_PORTS_H
#define COWATCH_ROUTER_PORTS_H

/* Asking the home router to forward a TCP port: UPnP-IGD through miniupnpc and NAT-PMP
 * through libnatpmp, behind a few calls that take and give plain C strings and numbers
 * (those libraries' structs hold fixed char arrays, which Swift sees as tuples). Every
 * call blocks for at most the time it is given. */

typedef struct cw_upnp cw_upnp;

/* Looks for an Internet gateway device for up to delay_ms. *status: 0 none answered, 1 a
 * connected gateway, 2 one that says it is not connected (both returned), 3 a UPnP device
 * that is no gateway (NULL). */
cw_upnp *cw_upnp_discover(int delay_ms, int *status);
/* This machine's address on the gateway's network, as the gateway sees it. */
const char *cw_upnp_lan_address(const cw_upnp *gateway);
/* The gateway's outside address into out (at least 40 bytes); 0 on success. */
int cw_upnp_external_address(const cw_upnp *gateway, char *out);
/* Forwards TCP external_port to lan:internal_port for lease seconds (0: until removed);
 * 0 on success, else a UPnP error code (cw_upnp_error says it in words). */
int cw_upnp_add(const cw_upnp *gateway, int external_port, int internal_port,
                const char *lan, int lease, const char *description);
/* Removes the forwarding of external_port, only if it still goes to this machine's
 * internal_port (-2 when the router gave it to someone else since: left alone). */
int cw_upnp_delete(const cw_upnp *gateway, int external_port, int internal_port);
const char *cw_upnp_error(int code);
void cw_upnp_free(cw_upnp *gateway);

/* NAT-PMP (RFC 6886) with the default gateway, each call waiting at most timeout_ms.
 * 0 on success, else libnatpmp's negative error (cw_natpmp_error says it in words). */
int cw_natpmp_external_address(int timeout_ms, char *out /* at least 16 bytes */);
int cw_natpmp_map(int private_port, int public_port, int lifetime, int timeout_ms,
                  int *mapped_public_port, int *granted_lifetime);
const char *cw_natpmp_error(int code);

#endif
