/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

#ifndef AFXDP_MODE_H
#define AFXDP_MODE_H 1

/* The XDP mode of an afxdp port: a leaf header, for the options
 * (lib/afxdp-config.h) and for OVS's struct netdev_linux, which names the
 * type through lib/netdev-afxdp.h. */

/* Requested or effective XDP mode of a port (options:xdp-mode). */
enum afxdp_mode {
    AFXDP_MODE_UNSPEC,          /* Nothing requested or in use yet. */
    AFXDP_MODE_BEST_EFFORT,     /* Native zero-copy, native copy, generic. */
    AFXDP_MODE_NATIVE_ZC,       /* Native XDP and zero-copy sockets only. */
    AFXDP_MODE_NATIVE,          /* Native XDP, copy-mode sockets. */
    AFXDP_MODE_GENERIC,         /* Generic (skb) XDP, copy-mode sockets. */
    AFXDP_MODE_MAX,
};

#endif /* afxdp-mode.h */
