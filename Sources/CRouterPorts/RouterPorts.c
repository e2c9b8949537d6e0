#include "CRouterPorts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/time.h>

#include <miniupnpc/miniupnpc.h>
#include <miniupnpc/upnpcommands.h>
#include <miniupnpc/upnperrors.h>
/* strnatpmperr is built into Debian's libnatpmp, declared only with this. */
#define ENABLE_STRNATPMPERR 1
#include <natpmp.h>

struct cw_upnp {
  struct UPNPUrls urls;
  struct IGDdatas data;
  char lan[64];
};

cw_upnp *cw_upnp_discover(int delay_ms, int *status) {
  int error = 0;
  *status = 0;
  struct UPNPDev *devices = upnpDiscover(delay_ms, NULL, NULL, UPNP_LOCAL_PORT_ANY, 0, 2, &error);
  if (devices == NULL) return NULL;
  cw_upnp *gateway = calloc(1, sizeof(cw_upnp));
  if (gateway == NULL) {
    freeUPNPDevlist(devices);
    return NULL;
  }
  int found = UPNP_GetValidIGD(devices, &gateway->urls, &gateway->data, gateway->lan,
                               (int)sizeof(gateway->lan));
  freeUPNPDevlist(devices);
  *status = found;
  if (found == 0) {
    free(gateway);
    return NULL;
  }
  /* One that says it is not connected is kept: its outside address says why (a private
   * one: carrier-grade NAT). */
  if (found != 1 && found != 2) {
    FreeUPNPUrls(&gateway->urls);
    free(gateway);
    return NULL;
  }
  return gateway;
}

const char *cw_upnp_lan_address(const cw_upnp *gateway) { return gateway->lan; }

int cw_upnp_external_address(const cw_upnp *gateway, char *out) {
  out[0] = 0;
  return UPNP_GetExternalIPAddress(gateway->urls.controlURL, gateway->data.first.servicetype,
                                   out);
}

int cw_upnp_add(const cw_upnp *gateway, int external_port, int internal_port, const char *lan,
                int lease, const char *description) {
  char external[8], internal[8], duration[16];
  snprintf(external, sizeof external, "%d", external_port);
  snprintf(internal, sizeof internal, "%d", internal_port);
  snprintf(duration, sizeof duration, "%d", lease);
  return UPNP_AddPortMapping(gateway->urls.controlURL, gateway->data.first.servicetype,
                             external, internal, lan, description, "TCP", NULL, duration);
}

int cw_upnp_delete(const cw_upnp *gateway, int external_port, int internal_port) {
  char external[8];
  snprintf(external, sizeof external, "%d", external_port);
  /* Only the mapping we made: the router may have given the port to another machine (or
   * another program) since, and deleting by port alone would close theirs. */
  char client[64] = {0}, internal[8] = {0}, description[80] = {0}, enabled[8] = {0},
       duration[16] = {0};
  int found = UPNP_GetSpecificPortMappingEntry(
      gateway->urls.controlURL, gateway->data.first.servicetype, external, "TCP", NULL, client,
      internal, description, enabled, duration);
  if (found != 0) return found;
  if (strcmp(client, gateway->lan) != 0 || atoi(internal) != internal_port) return -2;
  return UPNP_DeletePortMapping(gateway->urls.controlURL, gateway->data.first.servicetype,
                                external, "TCP", NULL);
}

const char *cw_upnp_error(int code) {
  const char *text = strupnperror(code);
  return text ? text : "unknown UPnP error";
}

void cw_upnp_free(cw_upnp *gateway) {
  if (gateway == NULL) return;
  FreeUPNPUrls(&gateway->urls);
  free(gateway);
}

/* Waits for the answer to the request just sent, for at most timeout_ms in all (libnatpmp
 * alone would retry for a minute). */
static int natpmp_answer(natpmp_t *session, natpmpresp_t *response, int timeout_ms) {
  struct timeval start, now;
  gettimeofday(&start, NULL);
  int result;
  do {
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(session->s, &readable);
    struct timeval wait;
    getnatpmprequesttimeout(session, &wait);
    gettimeofday(&now, NULL);
    long elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_usec - start.tv_usec) / 1000;
    long left = timeout_ms - elapsed;
    if (left <= 0) return NATPMP_ERR_RECVFROM;
    if (wait.tv_sec * 1000 + wait.tv_usec / 1000 > left) {
      wait.tv_sec = left / 1000;
      wait.tv_usec = (left % 1000) * 1000;
    }
    if (select(FD_SETSIZE, &readable, NULL, NULL, &wait) < 0 && errno != EINTR) {
      return NATPMP_ERR_RECVFROM;
    }
    result = readnatpmpresponseorretry(session, response);
  } while (result == NATPMP_TRYAGAIN);
  return result;
}

int cw_natpmp_external_address(int timeout_ms, char *out) {
  natpmp_t session;
  natpmpresp_t response;
  out[0] = 0;
  int result = initnatpmp(&session, 0, 0);
  if (result < 0) return result;
  result = sendpublicaddressrequest(&session);
  if (result >= 0) result = natpmp_answer(&session, &response, timeout_ms);
  if (result >= 0) inet_ntop(AF_INET, &response.pnu.publicaddress.addr, out, 16);
  closenatpmp(&session);
  return result < 0 ? result : 0;
}

int cw_natpmp_map(int private_port, int public_port, int lifetime, int timeout_ms,
                  int *mapped_public_port, int *granted_lifetime) {
  natpmp_t session;
  natpmpresp_t response;
  int result = initnatpmp(&session, 0, 0);
  if (result < 0) return result;
  result = sendnewportmappingrequest(&session, NATPMP_PROTOCOL_TCP, (uint16_t)private_port,
                                     (uint16_t)public_port, (uint32_t)lifetime);
  if (result >= 0) result = natpmp_answer(&session, &response, timeout_ms);
  if (result >= 0) {
    *mapped_public_port = response.pnu.newportmapping.mappedpublicport;
    *granted_lifetime = (int)response.pnu.newportmapping.lifetime;
  }
  closenatpmp(&session);
  return result < 0 ? result : 0;
}

const char *cw_natpmp_error(int code) {
  const char *text = strnatpmperr(code);
  return text ? text : "unknown NAT-PMP error";
}
