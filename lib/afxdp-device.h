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

#ifndef AFXDP_DEVICE_H
#define AFXDP_DEVICE_H 1

#include <stdbool.h>

/* What ethtool tells of a network device: its driver and how many rx
 * queues AF_XDP sockets can bind.  Control path only (one ioctl each, or
 * a read of sysfs); any thread. */

/* Runs the ethtool command 'cmd' (a struct ethtool_* whose first member is
 * its ETHTOOL_* number) on device 'name'; returns 0 or a positive errno. */
int afxdp_device_ethtool(const char *name, void *cmd);

/* Returns true if device 'name' is driven by 'driver' (e.g. "veth"), as
 * ETHTOOL_GDRVINFO reports it; false if it is not or cannot be asked. */
bool afxdp_device_driver_is(const char *name, const char *driver);

/* Returns the number of rx queues of device 'name' that AF_XDP sockets can
 * bind: its rx and combined channels as ethtool reports them, or, for a
 * driver without channels, the rx queues in sysfs.  0 if unknown. */
int afxdp_device_n_rxq(const char *name);

#endif /* afxdp-device.h */
